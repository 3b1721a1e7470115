//go:build !wasip1

package sdktest

import (
	"encoding/json"
	"math/big"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/sdk"
)

// callRate answers rate: the rate of Host.Rates, read now.
func (h *Host) callRate(req []byte) (any, error) {
	var in struct {
		Currency string `json:"currency"`
	}
	if err := json.Unmarshal(req, &in); err != nil {
		return nil, invalid(err)
	}
	code := strings.ToUpper(in.Currency)
	rate, ok := h.Rates[code]
	if !ok {
		return nil, &sdk.Error{Code: "unknown_currency", Message: "no rate for " + in.Currency}
	}
	return sdk.ExchangeRate{Currency: code, Rate: rate, Sources: []string{"sdktest"}, At: time.Now().UTC()}, nil
}

// priced converts an invoice asked for in a currency at Host.Rates, as the
// host does: amount × rate × 1000 msat, to the nearest msat.
func (h *Host) priced(in *sdk.NewInvoice) (*sdk.Fiat, error) {
	if in.Amount == "" && in.Currency == "" {
		return nil, nil
	}
	if in.AmountMsat != 0 {
		return nil, &sdk.Error{Code: "invalid", Message: "amount_msat or amount and currency, not both"}
	}
	r, err := h.callRate(mustJSON(map[string]string{"currency": in.Currency}))
	if err != nil {
		return nil, err
	}
	rate := r.(sdk.ExchangeRate)
	a, ok := new(big.Rat).SetString(in.Amount)
	per, ok2 := new(big.Rat).SetString(rate.Rate)
	if !ok || !ok2 || a.Sign() <= 0 || strings.ContainsAny(in.Amount, "eE/") {
		return nil, &sdk.Error{Code: "invalid", Message: "amount is a positive decimal string"}
	}
	msat := new(big.Rat).Mul(a, per)
	msat.Mul(msat, big.NewRat(1000, 1))
	msat.Add(msat, big.NewRat(1, 2)) // to the nearest, half up
	in.AmountMsat = new(big.Int).Quo(msat.Num(), msat.Denom()).Int64()
	return &sdk.Fiat{Amount: in.Amount, Currency: rate.Currency, Rate: rate.Rate, At: rate.At}, nil
}
