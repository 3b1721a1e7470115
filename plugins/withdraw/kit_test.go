package withdraw_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/bech32"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/plugins/withdraw"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/plugintest/apiserver"
)

// kit is the plugin built by its descriptor in a host over a real ledger,
// its lead running, served by the real API over HTTP: as Hearth's clients
// and outside LNURL wallets call it.
type kit struct {
	t      *testing.T
	e      *plugintest.Env
	srv    *httptest.Server
	tokens *auth.Tokens

	mu    sync.Mutex
	ahead time.Duration // the plugin's clock, ahead of the wall's
}

// each runs fn on SQLite and on PostgreSQL.
func each(t *testing.T, fn func(t *testing.T, db *store.DB)) { storetest.Each(t, fn) }

func newKit(t *testing.T, db *store.DB, tune func(*withdraw.Config)) *kit {
	t.Helper()
	return newKitWith(t, db, false, tune)
}

// newKitWith serves the plugin over https (withTLS: its public URL is
// https://127.0.0.1:port, which the test server's certificate names) or
// http.
func newKitWith(t *testing.T, db *store.DB, withTLS bool, tune func(*withdraw.Config)) *kit {
	t.Helper()
	k := &kit{t: t, e: plugintest.New(t, db, plugintest.Options{AllowPrivate: true})}
	k.srv = httptest.NewUnstartedServer(nil)
	public := "http://" + k.srv.Listener.Addr().String()
	if withTLS {
		k.srv.TLS = &tls.Config{}
		public = "https://" + k.srv.Listener.Addr().String()
	}
	d := withdraw.Descriptor(func(c *withdraw.Config) {
		c.PublicURL = public
		c.Poll = 20 * time.Millisecond
		// The tests call the public routes hundreds of times from one
		// address: TestRateLimit lowers the limit again.
		c.RatePerMinute, c.RateBurst = 1_000_000, 1_000_000
		c.Now = func() time.Time {
			k.mu.Lock()
			defer k.mu.Unlock()
			return time.Now().Add(k.ahead)
		}
		if tune != nil {
			tune(c)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := k.e.Registry.AddFeature(ctx, d, k.e.App.Environment()); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); k.e.Registry.RunBuiltins(ctx, k.e.Outbox) }()
	t.Cleanup(func() { cancel(); <-done })
	c := config.Default()
	c.PublicURL, c.Domain = public, k.srv.Listener.Addr().String()
	c.Plugins.AllowPrivateHosts = true
	k.tokens = apiserver.New(k.e, k.srv, c).Tokens
	return k
}

// later moves the plugin's clock d ahead.
func (k *kit) later(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ahead += d
}

// response is an answer over HTTP.
type response struct {
	Code int
	Body []byte
}

func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// do sends a request as token ("" for none); body is sent as JSON; path is
// the server's, or a whole URL.
func (k *kit) do(token, method, path string, body any) response {
	k.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			k.t.Fatal(err)
		}
		r = strings.NewReader(string(b))
	}
	u := path
	if strings.HasPrefix(path, "/") {
		u = k.srv.URL + path
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		k.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := k.srv.Client().Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{Code: resp.StatusCode, Body: b}
}

// user returns a token of userID with every scope, and the user's wallet
// funded with msat.
func (k *kit) user(userID string, msat int64) (string, *wallet.Wallet) {
	k.t.Helper()
	w := k.e.Wallet(userID, msat)
	tok, err := k.tokens.Issue(userID, auth.AllScopes)
	if err != nil {
		k.t.Fatal(err)
	}
	return tok, w
}

// link makes a link as token, expecting 201.
func (k *kit) link(token string, body map[string]any) withdraw.Link {
	k.t.Helper()
	r := k.do(token, "POST", "/v1/me/withdraw-links", body)
	if r.Code != http.StatusCreated {
		k.t.Fatalf("making a link: %d %s", r.Code, r.Body)
	}
	var l withdraw.Link
	r.json(k.t, &l)
	return l
}

// request reads the link's withdrawRequest as an LNURL wallet does: the
// bech32 decoded to its URL.
func (k *kit) request(l withdraw.Link) withdraw.WithdrawRequest {
	k.t.Helper()
	hrp, data, err := bech32.DecodeNoLimit(strings.ToLower(l.LNURL))
	if err != nil || hrp != "lnurl" {
		k.t.Fatalf("lnurl %s: %v", l.LNURL, err)
	}
	raw, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		k.t.Fatal(err)
	}
	r := k.do("", "GET", string(raw), nil)
	if r.Code != http.StatusOK {
		k.t.Fatalf("the withdrawRequest: %d %s", r.Code, r.Body)
	}
	var wr withdraw.WithdrawRequest
	r.json(k.t, &wr)
	return wr
}

// invoice makes an invoice of msat as token, returning its id and bolt11.
func (k *kit) invoice(token string, msat int64) (string, string) {
	k.t.Helper()
	r := k.do(token, "POST", "/v1/me/invoices", map[string]any{"amount_msat": msat})
	if r.Code != http.StatusCreated {
		k.t.Fatalf("invoice: %d %s", r.Code, r.Body)
	}
	var inv struct {
		ID        string `json:"id"`
		LnInvoice struct {
			Bolt11 string `json:"bolt11"`
		} `json:"ln_invoice"`
	}
	r.json(k.t, &inv)
	return inv.ID, inv.LnInvoice.Bolt11
}

// claim calls the callback with k1 and pr; it returns the status code and
// the LUD answer.
func (k *kit) claim(wr withdraw.WithdrawRequest, k1, pr string) (int, withdraw.Status) {
	k.t.Helper()
	r := k.do("", "GET", wr.Callback+"?k1="+url.QueryEscape(k1)+"&pr="+url.QueryEscape(pr), nil)
	var s withdraw.Status
	r.json(k.t, &s)
	return r.Code, s
}

// settled reports whether token's invoice id is settled.
func (k *kit) settled(token, id string) bool {
	k.t.Helper()
	r := k.do(token, "GET", "/v1/me/invoices/"+id, nil)
	var inv struct {
		Status string `json:"status"`
	}
	r.json(k.t, &inv)
	return inv.Status == "Settled"
}

// get reads token's link id.
func (k *kit) get(token, id string) withdraw.Link {
	k.t.Helper()
	r := k.do(token, "GET", "/v1/me/withdraw-links/"+id, nil)
	if r.Code != http.StatusOK {
		k.t.Fatalf("reading link %s: %d %s", id, r.Code, r.Body)
	}
	var l withdraw.Link
	r.json(k.t, &l)
	return l
}

// admin returns the admin's token.
func (k *kit) admin() string {
	k.t.Helper()
	tok, err := k.tokens.Issue(auth.AdminUserID, auth.AllScopes)
	if err != nil {
		k.t.Fatal(err)
	}
	return tok
}

// claimState is the state of the link's one claim, read in its table.
func (k *kit) claimState(linkID string) string {
	k.t.Helper()
	var state string
	if err := k.e.DB.R.NewRaw("SELECT state FROM withdraw_claims WHERE link_id = ?", linkID).Scan(context.Background(), &state); err != nil {
		k.t.Fatal(err)
	}
	return state
}

// event reads the server-sent events of token's wallet from the first and
// returns the data of the first of type typ that match accepts.
func (k *kit) event(token, typ string, match func(data []byte) bool) []byte {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", k.srv.URL+"/v1/me/events?last_event_id=0", nil)
	if err != nil {
		k.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := k.srv.Client().Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		k.t.Fatalf("the event stream: %d", res.StatusCode)
	}
	lines := bufio.NewScanner(res.Body)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	kind := ""
	for lines.Scan() {
		line := lines.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			kind = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok && kind == typ && match([]byte(v)) {
			return []byte(v)
		}
	}
	k.t.Fatalf("no %s event on the stream: %v", typ, lines.Err())
	return nil
}

// claimedEvents returns the subjects (claim ids) of the withdraw.claimed
// events of link id, as stored.
func (k *kit) claimedEvents(id string) []string {
	k.t.Helper()
	var rows []outbox.PluginEvent
	if err := k.e.DB.R.NewSelect().Model(&rows).Where("type = ?", withdraw.Claimed).Scan(context.Background()); err != nil {
		k.t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		var d withdraw.ClaimedEvent
		if err := json.Unmarshal([]byte(r.Data), &d); err != nil {
			k.t.Fatal(err)
		}
		if d.LinkID == id {
			out = append(out, r.SubjectID)
		}
	}
	return out
}
