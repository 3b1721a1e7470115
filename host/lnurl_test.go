package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestLightningAddressLookup runs the LNURL-pay client against a test
// server that misbehaves in each way the client must catch.
func TestLightningAddressLookup(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true})
	bob := e.Wallet("bob", 0)
	const meta = `[["text/plain","bob"]]`
	sum := sha256.Sum256([]byte(meta))
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := strings.TrimPrefix(r.URL.Path, "/.well-known/lnurlp/")
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			switch user {
			case "unknown":
				w.WriteHeader(404)
				json.NewEncoder(w).Encode(map[string]any{"status": "ERROR", "reason": "no such user"})
				return
			case "notpay":
				json.NewEncoder(w).Encode(map[string]any{"tag": "withdrawRequest"})
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"tag": "payRequest", "callback": srv.URL + "/cb/" + user,
				"minSendable": 1000, "maxSendable": 100_000, "metadata": meta})
			return
		}
		user = strings.TrimPrefix(r.URL.Path, "/cb/")
		amount, _ := strconv.ParseInt(r.URL.Query().Get("amount"), 10, 64)
		req := ledger.NewInvoice{AmountMsat: amount, DescriptionHash: sum[:]}
		switch user {
		case "cheat":
			req.AmountMsat = amount + 1000
		case "nodesc":
			req.DescriptionHash = nil
		}
		inv, err := e.Ledger.CreateInvoice(r.Context(), bob.ID, req)
		if err != nil {
			w.WriteHeader(500)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"pr": inv.Bolt11, "routes": []any{}})
	}))
	defer srv.Close()
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: true})
	l := host.NewLNURL(out, e.Node)
	domain := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	for _, tc := range []struct {
		user   string
		amount int64
		err    string
	}{
		{"bob", 5000, ""},
		{"bob", 500, "outside"},
		{"bob", 200_000, "outside"},
		{"unknown", 5000, "no such user"},
		{"notpay", 5000, "not a payRequest"},
		{"cheat", 5000, "not 5000"},
		{"nodesc", 5000, "metadata"},
	} {
		bolt11, err := l.Resolve(ctx, tc.user+"@"+domain, tc.amount, "hi")
		if tc.err == "" {
			if err != nil || bolt11 == "" {
				t.Errorf("%s: %v", tc.user, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s %d: err %v, want %q", tc.user, tc.amount, err, tc.err)
		}
	}
	if _, err := l.Resolve(ctx, "not an address", 1000, ""); err == nil {
		t.Error("resolved a non-address")
	}
	strict := host.NewLNURL(host.NewOutbound(host.OutboundConfig{}), e.Node)
	if _, err := strict.Resolve(ctx, "bob@"+domain, 5000, ""); err == nil {
		t.Error("reached a loopback LNURL server without the test switch")
	}
}
