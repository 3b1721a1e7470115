package main

import (
	"strings"
	"testing"
	"time"
)

// consumerStats is what GET /v1/system/stats tells of a consumer.
type consumerStats struct {
	Name       string  `json:"name"`
	State      string  `json:"state"`
	LagEvents  int64   `json:"lag_events"`
	LagSeconds float64 `json:"lag_seconds"`
}

// TestConsumersThatAreOffAreNotBehind is issue 49's admin Home that
// alarmed for nothing: on a server without Wallet Connect relays (the
// default), once payments have written events, the stats tell the
// built-in nwc's consumer off, with no lag, while those that run (the
// host's streams, which deliver the webhooks') are running and catch up, and no built-in has a plugin
// worker's consumer besides (it would deliver nothing, and be told off
// while its feature runs); on both databases.
func TestConsumersThatAreOffAreNotBehind(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		_, c := serveProcess(t, environ)
		var tok struct{ Token string }
		c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
		for range 3 { // three invoices paid: three invoice.settled events
			var inv struct {
				LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
			}
			c.decode(c.expect(c.call("POST", "/v1/me/invoices", `{"amount_msat":1000}`, tok.Token), 201), &inv)
			c.expect(c.call("POST", "/v1/lightning-node/pay", `{"bolt11":"`+inv.LnInvoice.Bolt11+`"}`, tok.Token), 204)
		}

		var last map[string]consumerStats
		deadline := time.Now().Add(time.Minute)
		for {
			last = consumers(c, tok.Token)
			nwc, hooks := last["builtin:nwc"], last["host:streams"]
			if nwc == (consumerStats{Name: "builtin:nwc", State: "off"}) &&
				hooks == (consumerStats{Name: "host:streams", State: "running"}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("consumers %+v; want builtin:nwc off without lag and host:streams (the webhooks' streams) running, caught up", last)
			}
			time.Sleep(100 * time.Millisecond) // polling the stats: the streams' tail catches up on its own time
		}
		for name, s := range last {
			if strings.HasPrefix(name, "plugin:") {
				// A built-in's events are its lead's (builtin:…): a
				// plugin's worker for it would tell LNURL, say, off.
				t.Errorf("consumer %s on a server without WebAssembly plugins: %+v", name, s)
			}
			if s.State != "running" && s.State != "off" {
				t.Errorf("consumer %s: state %q, want running or off", name, s.State)
			}
			if s.State == "off" && (s.LagEvents != 0 || s.LagSeconds != 0) {
				t.Errorf("consumer %s is off with a lag: %+v", name, s)
			}
		}
	})
}

// consumers reads the consumers of the server's stats, by name.
func consumers(c *client, token string) map[string]consumerStats {
	c.t.Helper()
	var st struct {
		Outbox *struct {
			Consumers []consumerStats `json:"consumers"`
		} `json:"outbox"`
	}
	c.decode(c.expect(c.call("GET", "/v1/system/stats", "", token), 200), &st)
	if st.Outbox == nil {
		c.t.Fatal("the stats tell no outbox")
	}
	out := map[string]consumerStats{}
	for _, s := range st.Outbox.Consumers {
		out[s.Name] = s
	}
	if len(out) == 0 {
		c.t.Fatalf("the stats tell no consumer: %+v", st.Outbox)
	}
	return out
}
