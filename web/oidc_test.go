package web_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/hearthwallet/hearth/core/auth"
)

const (
	oidcAudience = "hearth"
	oidcClientID = "hearth-dashboard"
	oidcUser     = "oidc-alice"
)

// provider is an in-process OpenID Connect provider: discovery, a JWKS of
// one RSA key, /authorize that approves its one test user at once (no
// login page) for the registered client and redirect URI, and /token that
// checks the code, the client, the redirect URI and PKCE (S256), then
// issues RS256 JWTs: an access token for Hearth's audience with the
// permissions and roles claims Hearth reads, and an ID token for the
// client. Its discovery document and token endpoint answer CORS for the
// dashboard's origin, as a provider with a registered web client does.
type provider struct {
	t   *testing.T
	srv *httptest.Server
	key *rsa.PrivateKey

	mu          sync.Mutex
	redirectURI string // the client's registered redirect URI
	origin      string // the dashboard's origin, for CORS
	codes       map[string]grant
	// issued are the access tokens issued; exchanges counts the code
	// exchanges that succeeded, refusals the ones refused.
	issued              []string
	exchanges, refusals int
	authorizeQueries    []url.Values
	// roles are the roles claim of the tokens issued next.
	roles              []string
	refusedForVerifier bool
}

// grant is what a code stands for.
type grant struct {
	clientID, redirectURI, challenge string
}

func startProvider(t *testing.T) *provider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{t: t, key: key, codes: map[string]grant{}, roles: []string{"member"}}
	mux := http.NewServeMux()
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		p.cors(w)
		u := p.srv.URL
		writeJSONTo(w, http.StatusOK, map[string]any{
			"issuer":                                u,
			"authorization_endpoint":                u + "/authorize",
			"token_endpoint":                        u + "/token",
			"jwks_uri":                              u + "/jwks",
			"response_types_supported":              []string{"code"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"code_challenge_methods_supported":      []string{"S256"},
			"grant_types_supported":                 []string{"authorization_code"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		writeJSONTo(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
			Key: &p.key.PublicKey, KeyID: "k1", Algorithm: string(jose.RS256), Use: "sig"}}})
	})
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("OPTIONS /token", func(w http.ResponseWriter, r *http.Request) { p.cors(w); w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST /token", p.token)
	return p
}

// URL is the issuer identifier.
func (p *provider) URL() string { return p.srv.URL }

// register registers the dashboard at origin as the public client.
func (p *provider) register(origin string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.origin = origin
	p.redirectURI = origin + "/"
}

func (p *provider) cors(w http.ResponseWriter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.Header().Set("Access-Control-Allow-Origin", p.origin)
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
	w.Header().Set("Access-Control-Allow-Headers", "Accept, Content-Type")
	w.Header().Set("Vary", "Origin")
}

func (p *provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	p.authorizeQueries = append(p.authorizeQueries, q)
	registered := p.redirectURI
	p.mu.Unlock()
	// A client or redirect URI that is not registered gets a page, never a
	// redirect (RFC 6749 §4.1.2.1).
	if q.Get("client_id") != oidcClientID || q.Get("redirect_uri") != registered {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(registered)
	answer := url.Values{"state": {q.Get("state")}}
	switch {
	case q.Get("response_type") != "code":
		answer.Set("error", "unsupported_response_type")
	case q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43:
		answer.Set("error", "invalid_request")
		answer.Set("error_description", "PKCE with S256 is required")
	case !strings.Contains(" "+q.Get("scope")+" ", " openid "):
		answer.Set("error", "invalid_scope")
	default:
		code := rand.Text()
		p.mu.Lock()
		p.codes[code] = grant{clientID: q.Get("client_id"), redirectURI: q.Get("redirect_uri"), challenge: q.Get("code_challenge")}
		p.mu.Unlock()
		answer.Set("code", code)
	}
	back.RawQuery = answer.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (p *provider) token(w http.ResponseWriter, r *http.Request) {
	p.cors(w)
	if err := r.ParseForm(); err != nil {
		writeJSONTo(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	p.mu.Lock()
	g, ok := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code")) // a code is good once
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	pkce := base64.RawURLEncoding.EncodeToString(sum[:]) == g.challenge
	if !ok || !pkce || f.Get("grant_type") != "authorization_code" || f.Get("client_id") != g.clientID || f.Get("redirect_uri") != g.redirectURI {
		p.refusals++
		p.refusedForVerifier = ok && !pkce
		p.mu.Unlock()
		writeJSONTo(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "bad code, client, redirect_uri or code_verifier"})
		return
	}
	roles := p.roles
	p.mu.Unlock()
	now := time.Now()
	base := jwt.Claims{Issuer: p.URL(), Subject: oidcUser, IssuedAt: jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)), Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
	access := base
	access.Audience = jwt.Audience{oidcAudience}
	id := base
	id.Audience = jwt.Audience{oidcClientID}
	accessToken := p.sign(struct {
		jwt.Claims
		Permissions []string `json:"permissions"`
		Roles       []string `json:"roles"`
	}{access, []string{"read:wallet", "read:transaction", "write:transaction", "read:api_key", "write:api_key", "read:ln_address", "write:ln_address"}, roles})
	if slices.Contains(roles, "admin") {
		// The admin holds every permission, as the password's admin does.
		accessToken = p.sign(struct {
			jwt.Claims
			Permissions []string `json:"permissions"`
			Roles       []string `json:"roles"`
		}{access, auth.AllScopes.Names(), roles})
	}
	idToken := p.sign(struct {
		jwt.Claims
		Name string `json:"name"`
	}{id, "Alice"})
	p.mu.Lock()
	p.issued = append(p.issued, accessToken)
	p.exchanges++
	p.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	writeJSONTo(w, http.StatusOK, map[string]any{"access_token": accessToken, "id_token": idToken, "token_type": "Bearer", "expires_in": 3600})
}

func (p *provider) sign(claims any) string {
	p.t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: p.key, KeyID: "k1"}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		p.t.Fatal(err)
	}
	raw, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		p.t.Fatal(err)
	}
	return raw
}

func writeJSONTo(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client left
}

// An OIDC instance: the dashboard sends the person to the provider with
// one button, comes back signed in with the access token (the JWT for
// Hearth's audience; the ID token is for the client), and never shows a
// password field nor puts a token in a URL or the console.
func TestDashboardSignsInAtOIDCProvider(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	artifacts := artifactsDir(t)
	idp := startProvider(t)
	h := startHearthWith(t, serverOptions{oidcIssuer: idp.URL()})
	idp.register(h.URL)

	ctx := startBrowser(t, chromium, 8*time.Minute, chromedp.WindowSize(1280, 900), chromedp.Flag("lang", "en-US"))
	w := &watcher{origin: h.URL, provider: idp.URL()}
	if err := w.listen(ctx); err != nil {
		t.Fatal(err)
	}
	// Every console message, not only errors (none may hold a token), and
	// every URL the page was at.
	var mu sync.Mutex
	var console, navigated []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			for _, a := range ev.Args {
				console = append(console, string(a.Value)+a.Description)
			}
		case *page.EventFrameNavigated:
			navigated = append(navigated, ev.Frame.URL+ev.Frame.URLFragment)
		case *page.EventNavigatedWithinDocument:
			navigated = append(navigated, ev.URL)
		}
	}); err != nil {
		t.Fatal(err)
	}
	p := &person{t: t, ctx: ctx, artifacts: artifacts, w: w}
	p.do("start the browser", call(network.Enable, network.EnableParams{}), call(cdplog.Enable, cdp.Empty{}),
		call(runtime.Enable, cdp.Empty{}), call(page.Enable, page.EnableParams{}))

	name := strings.TrimPrefix(idp.URL(), "http://")
	signInButton := button("Sign in with " + name)
	noPassword := func(step string) {
		t.Helper()
		if n := get(p, step, chromedp.Evaluate[int](`document.querySelectorAll('input[type=password]').length`)); n != 0 {
			t.Fatalf("%s: %d password field(s) shown", step, n)
		}
	}
	p.do("open the dashboard", chromedp.Navigate(h.URL+"/"), visible(heading("Sign in")), visible(signInButton))
	noPassword("the first screen")
	checkLabels(p)
	p.screenshot("oidc-sign-in-desktop")

	p.do("sign in at the provider", click(signInButton),
		visible(heading("Wallet")), balanceIs("0 sats"), visible(`//span[@class='user'][normalize-space()='`+oidcUser+`']`),
		visible(`//span[@role='status'][normalize-space()='Live']`))
	noPassword("the wallet")
	if n := get(p, "look for Admin", chromedp.Evaluate[int](`[...document.querySelectorAll('nav a')].filter((a) => a.textContent === 'Admin').length`)); n != 0 {
		t.Fatal("Admin is offered to a user without the admin role")
	}
	p.screenshot("oidc-wallet-desktop")
	if loc := get(p, "read the address bar", chromedp.Evaluate[string](`location.href`)); loc != h.URL+"/" && loc != h.URL+"/#/" {
		t.Fatalf("after the sign-in the address bar reads %q: the code and state must be gone", loc)
	}
	idp.mu.Lock()
	exchanges, issued, queries := idp.exchanges, append([]string(nil), idp.issued...), idp.authorizeQueries
	idp.mu.Unlock()
	if exchanges != 1 || len(issued) != 1 || len(queries) != 1 {
		t.Fatalf("the provider saw %d authorization request(s) and %d code exchange(s)", len(queries), exchanges)
	}
	q := queries[0]
	if q.Get("code_challenge_method") != "S256" || q.Get("state") == "" || q.Get("redirect_uri") != h.URL+"/" ||
		q.Get("client_id") != oidcClientID || q.Get("scope") != "openid" || q.Get("audience") != oidcAudience {
		t.Fatalf("the authorization request: %v", q)
	}
	stored := get(p, "read the session", chromedp.Evaluate[map[string]string](`Object.fromEntries(Object.entries(sessionStorage))`))
	if stored["hearth.token"] != issued[0] || len(stored) != 1 {
		t.Fatalf("sessionStorage after the sign-in holds %v; want only the access token", keysOf(stored))
	}
	// The token works, through the dashboard: a page that reads.
	p.do("the activity", click(link("Activity")), visible(heading("Activity")), visible(text("p", "0 records")))
	p.do("the settings", click(link("Settings")), visible(heading("Settings")),
		visible(text("p", "Your password is kept at "+name+", where you sign in: change it there.")))
	noPassword("the settings")
	p.do("the Lightning Address form", click(link("Lightning Address")),
		visible(`//span[@id='ln-domain'][normalize-space()='@`+testDomain+`']`))
	noAddress(t, w)
	p.screenshot("oidc-signed-in-desktop")

	// A reload keeps the session (sessionStorage), with no new sign-in.
	p.do("reload", chromedp.Reload(), visible(heading("Lightning Address")))
	noAddress(t, w)
	idp.mu.Lock()
	exchanges = idp.exchanges
	idp.mu.Unlock()
	if exchanges != 1 {
		t.Fatalf("a reload exchanged a code again (%d exchanges)", exchanges)
	}

	p.do("sign out", click(button("Sign out")), visible(heading("Sign in")), visible(signInButton))
	noPassword("after sign-out")
	if n := get(p, "the token is gone", chromedp.Evaluate[int](`sessionStorage.length`)); n != 0 {
		t.Fatalf("sessionStorage after sign-out holds %d item(s)", n)
	}
	p.screenshot("oidc-signed-out-desktop")

	// A forged answer (a code and state this tab never asked for): refused
	// by the state, shown with its reason and the button; no exchange.
	p.do("a forged answer", chromedp.Navigate(h.URL+"/?code=forged&state=forged"),
		visible(`//p[@role='alert'][contains(., 'was not started here')]`), visible(signInButton))
	p.screenshot("oidc-refused-desktop")
	if loc := get(p, "read the address bar", chromedp.Evaluate[string](`location.href`)); loc != h.URL+"/" {
		t.Fatalf("after a forged answer the address bar reads %q", loc)
	}
	idp.mu.Lock()
	exchanges = idp.exchanges + idp.refusals
	idp.mu.Unlock()
	if exchanges != 1 {
		t.Fatalf("a forged answer reached the token endpoint (%d exchanges)", exchanges)
	}

	// Signed in again, now with the admin role: the provider is asked
	// again, and the admin's screens are offered.
	idp.mu.Lock()
	idp.roles = []string{"member", "admin"}
	idp.mu.Unlock()
	p.do("sign in again", click(signInButton), visible(heading("Wallet")), balanceIs("0 sats"))
	p.do("the admin's page", click(link("Admin")), visible(heading("Admin")), visible(`//dd[normalize-space()='embedded']`))
	p.do("sign out again", click(button("Sign out")), visible(signInButton))

	w.check(t)
	token := issued[0]
	w.mu.Lock()
	requests := append([]string(nil), w.requests...)
	w.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	for _, u := range append(requests, navigated...) {
		if strings.Contains(u, token) || strings.Contains(u, "eyJ") || strings.Contains(u, "access_token") {
			t.Errorf("a token in a URL: %s", u)
		}
	}
	for _, u := range navigated {
		if strings.Contains(u, "code=") && !strings.HasPrefix(u, h.URL+"/?") {
			t.Errorf("the code went to %s", u)
		}
	}
	for _, c := range console {
		if strings.Contains(c, "eyJ") {
			t.Errorf("a token in the console: %s", c)
		}
	}
	sawProvider := false
	for _, u := range requests {
		if strings.HasPrefix(u, idp.URL()+"/token") {
			sawProvider = true
		}
	}
	if !sawProvider {
		t.Fatal("the browser never called the token endpoint")
	}
	t.Logf("%d requests, %d navigations, to %s and %s only", len(requests), len(navigated), h.URL, idp.URL())
}

func keysOf(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
