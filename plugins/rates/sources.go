package rates

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hearthwallet/hearth/lib/fiat"
)

// Source is a public price API: where to ask for the price of a bitcoin in
// a currency, and how to read the answer. Each reads the response format
// its documentation gives, recorded in the tests' price server.
type Source struct {
	Name string
	// Base is the API's root URL, without a trailing slash.
	Base string
	// Currencies are those it quotes; nil for any.
	Currencies []string
	// path is the request's path (and query) for currency.
	path func(currency string) string
	// price reads the price of a bitcoin in currency from the answer.
	price func(body []byte, currency string) (*big.Rat, error)
}

// quotes reports whether s quotes currency.
func (s Source) quotes(currency string) bool {
	return s.Currencies == nil || slices.Contains(s.Currencies, currency)
}

// url is where s is asked for currency.
func (s Source) url(currency string) string { return s.Base + s.path(currency) }

// sources are the known sources, by name.
var sources = []Source{
	{
		// Kraken's public ticker: GET /0/public/Ticker?pair=XBTUSD →
		// {"error":[],"result":{"XXBTZUSD":{"c":["97123.40000","0.0012"],…}}};
		// c is the last trade [price, volume], under the pair's own name.
		Name: "kraken", Base: "https://api.kraken.com", Currencies: []string{"USD", "EUR", "GBP", "CAD", "CHF", "AUD", "JPY"},
		path: func(c string) string { return "/0/public/Ticker?pair=XBT" + c },
		price: func(body []byte, _ string) (*big.Rat, error) {
			var v struct {
				Error  []string `json:"error"`
				Result map[string]struct {
					C []string `json:"c"`
				} `json:"result"`
			}
			if err := json.Unmarshal(body, &v); err != nil {
				return nil, err
			}
			if len(v.Error) > 0 {
				return nil, fmt.Errorf("kraken: %s", strings.Join(v.Error, "; "))
			}
			if len(v.Result) != 1 {
				return nil, fmt.Errorf("kraken: %d pairs in the answer, want 1", len(v.Result))
			}
			for _, t := range v.Result {
				if len(t.C) == 0 {
					return nil, errors.New("kraken: no last trade")
				}
				return fiat.ParseDecimal(t.C[0])
			}
			return nil, nil
		},
	},
	{
		// Bitstamp's ticker: GET /api/v2/ticker/btcusd/ → {"last":"97123",…}.
		Name: "bitstamp", Base: "https://www.bitstamp.net", Currencies: []string{"USD", "EUR", "GBP"},
		path: func(c string) string { return "/api/v2/ticker/btc" + strings.ToLower(c) + "/" },
		price: func(body []byte, _ string) (*big.Rat, error) {
			var v struct {
				Last string `json:"last"`
			}
			if err := json.Unmarshal(body, &v); err != nil {
				return nil, err
			}
			return fiat.ParseDecimal(v.Last)
		},
	},
	{
		// Coinbase's spot price: GET /v2/prices/BTC-USD/spot →
		// {"data":{"amount":"97123.45","base":"BTC","currency":"USD"}}.
		Name: "coinbase", Base: "https://api.coinbase.com",
		path: func(c string) string { return "/v2/prices/BTC-" + c + "/spot" },
		price: func(body []byte, currency string) (*big.Rat, error) {
			var v struct {
				Data struct {
					Amount   string `json:"amount"`
					Base     string `json:"base"`
					Currency string `json:"currency"`
				} `json:"data"`
			}
			if err := json.Unmarshal(body, &v); err != nil {
				return nil, err
			}
			if v.Data.Base != "BTC" || v.Data.Currency != currency {
				return nil, fmt.Errorf("coinbase: a price of %s in %s, want BTC in %s", v.Data.Base, v.Data.Currency, currency)
			}
			return fiat.ParseDecimal(v.Data.Amount)
		},
	},
	{
		// mempool.space's prices: GET /api/v1/prices →
		// {"time":1703252411,"USD":43753,"EUR":40545,…} (numbers).
		Name: "mempool", Base: "https://mempool.space", Currencies: []string{"USD", "EUR", "GBP", "CAD", "CHF", "AUD", "JPY"},
		path: func(string) string { return "/api/v1/prices" },
		price: func(body []byte, currency string) (*big.Rat, error) {
			var v map[string]json.Number
			if err := decodeNumbers(body, &v); err != nil {
				return nil, err
			}
			return numberOf(v, currency)
		},
	},
	{
		// yadio: GET /exrates/BTC → {"BTC":{"USD":97123.45,"ARS":…},
		// "base":"BTC","timestamp":…}: currencies the exchanges lack.
		Name: "yadio", Base: "https://api.yadio.io",
		path: func(string) string { return "/exrates/BTC" },
		price: func(body []byte, currency string) (*big.Rat, error) {
			var v struct {
				BTC map[string]json.Number `json:"BTC"`
			}
			if err := decodeNumbers(body, &v); err != nil {
				return nil, err
			}
			return numberOf(v.BTC, currency)
		},
	},
}

// SourceNames are the known sources' names.
func SourceNames() []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = s.Name
	}
	return out
}

// sourceNamed is the known source name.
func sourceNamed(name string) (Source, bool) {
	for _, s := range sources {
		if s.Name == name {
			return s, true
		}
	}
	return Source{}, false
}

// decodeNumbers decodes JSON keeping its numbers as they are written.
func decodeNumbers(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return dec.Decode(v)
}

// numberOf is the price under currency, written as a decimal.
func numberOf(prices map[string]json.Number, currency string) (*big.Rat, error) {
	n, ok := prices[currency]
	if !ok {
		return nil, fmt.Errorf("no price in %s", currency)
	}
	return fiat.ParseDecimal(n.String())
}
