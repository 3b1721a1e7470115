package rates_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// priceServer stands in for the public price APIs: each source's path
// answers in that source's own format (as its documentation shows it),
// at a price the test sets per source and currency, or fails.
type priceServer struct {
	*httptest.Server

	mu       sync.Mutex
	prices   map[string]map[string]string // source → currency → price
	down     map[string]bool
	requests map[string]int
}

func newPriceServer(t *testing.T) *priceServer {
	t.Helper()
	s := &priceServer{prices: map[string]map[string]string{}, down: map[string]bool{}, requests: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /0/public/Ticker", func(w http.ResponseWriter, r *http.Request) {
		cur := strings.TrimPrefix(r.URL.Query().Get("pair"), "XBT")
		s.answer(w, "kraken", cur, func(p string) string {
			// Kraken names the pair its own way (XXBTZUSD) and quotes the
			// last trade as [price, volume].
			return fmt.Sprintf(`{"error":[],"result":{"XXBTZ%s":{"a":["%s","1","1.000"],"b":["%s","1","1.000"],"c":["%s","0.00100000"],"v":["1","2"],"p":["%s","%s"],"t":[1,2],"l":["1","1"],"h":["1","1"],"o":"%s"}}}`,
				cur, p, p, p, p, p, p)
		})
	})
	mux.HandleFunc("GET /api/v2/ticker/{pair}/", func(w http.ResponseWriter, r *http.Request) {
		cur := strings.ToUpper(strings.TrimPrefix(r.PathValue("pair"), "btc"))
		s.answer(w, "bitstamp", cur, func(p string) string {
			return fmt.Sprintf(`{"timestamp":"1732870000","open":"%s","high":"%s","low":"%s","last":"%s","volume":"1.5","vwap":"%s","bid":"%s","ask":"%s","side":"0","open_24":"%s","percent_change_24":"0.10"}`,
				p, p, p, p, p, p, p, p)
		})
	})
	mux.HandleFunc("GET /v2/prices/{pair}/spot", func(w http.ResponseWriter, r *http.Request) {
		cur := strings.TrimPrefix(r.PathValue("pair"), "BTC-")
		s.answer(w, "coinbase", cur, func(p string) string {
			return fmt.Sprintf(`{"data":{"amount":"%s","base":"BTC","currency":"%s"}}`, p, cur)
		})
	})
	mux.HandleFunc("GET /api/v1/prices", func(w http.ResponseWriter, r *http.Request) {
		s.answerAll(w, "mempool", func(prices map[string]string) string {
			var b strings.Builder
			b.WriteString(`{"time":1732870000`)
			for cur, p := range prices {
				fmt.Fprintf(&b, `,"%s":%s`, cur, p) // numbers, not strings
			}
			return b.String() + "}"
		})
	})
	mux.HandleFunc("GET /exrates/BTC", func(w http.ResponseWriter, r *http.Request) {
		s.answerAll(w, "yadio", func(prices map[string]string) string {
			parts := []string{}
			for cur, p := range prices {
				parts = append(parts, fmt.Sprintf(`"%s":%s`, cur, p))
			}
			return `{"BTC":{` + strings.Join(parts, ",") + `},"base":"BTC","timestamp":1732870000000}`
		})
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// set prices source's currency at price (units per bitcoin).
func (s *priceServer) set(source, currency, price string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prices[source] == nil {
		s.prices[source] = map[string]string{}
	}
	s.prices[source][currency] = price
}

// setAll prices currency at price on every source.
func (s *priceServer) setAll(currency, price string) {
	for _, src := range []string{"kraken", "bitstamp", "coinbase", "mempool", "yadio"} {
		s.set(src, currency, price)
	}
}

// fail has source answer 500 (or answer again).
func (s *priceServer) fail(source string, down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down[source] = down
}

// asked is how many requests source got.
func (s *priceServer) asked(source string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[source]
}

// sources is the rates.sources setting naming every source at the server.
func (s *priceServer) sources(names ...string) string {
	if len(names) == 0 {
		names = []string{"kraken", "bitstamp", "coinbase", "mempool", "yadio"}
	}
	for i, n := range names {
		names[i] = n + "=" + s.URL
	}
	return strings.Join(names, ",")
}

func (s *priceServer) answer(w http.ResponseWriter, source, currency string, body func(price string) string) {
	s.mu.Lock()
	s.requests[source]++
	down, p := s.down[source], s.prices[source][currency]
	s.mu.Unlock()
	switch {
	case down:
		http.Error(w, "unavailable", http.StatusInternalServerError)
	case p == "":
		http.Error(w, `{"error":["EQuery:Unknown asset pair"]}`, http.StatusNotFound)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body(p))
	}
}

func (s *priceServer) answerAll(w http.ResponseWriter, source string, body func(prices map[string]string) string) {
	s.mu.Lock()
	s.requests[source]++
	down := s.down[source]
	prices := map[string]string{}
	for c, p := range s.prices[source] {
		prices[c] = p
	}
	s.mu.Unlock()
	if down {
		http.Error(w, "unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, body(prices))
}
