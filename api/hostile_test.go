package api_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/testkit/logtest"
)

// hostileRow is one request a hostile client sends, and the error it must
// get.
type hostileRow struct {
	name         string
	method, path string
	body         []byte // nil sends no body
	headers      []string
	length       int64 // a declared Content-Length instead of the body's, when set
	status       int
	code         string
}

// TestHostileInputs sends what a hostile client would, on both databases:
// malformed JSON, wrong types, unknown and differently-cased fields, NUL,
// control characters and invalid UTF-8 in every string field of every
// route, huge and negative numbers, NUL, unicode and traversal in paths,
// bad UUIDs, limits and offsets out of range, wrong or missing media types,
// forged JWTs, and revoked, expired and other users' keys on admin routes.
// Each gets its documented 4xx JSON error; nothing is written, and nothing
// internal shows in a body or the log.
func TestHostileInputs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		logs := &logtest.Buffer{}
		e := newEnv(t, db, func(c *config.Config, d *api.Deps) {
			c.Auth.SignInRate, c.Auth.SignInBurst = 1000, 1000
			d.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		h := newHostileKit(t, e, db)
		rows := h.rows()
		if len(rows) < 100 {
			t.Fatalf("the table has %d rows, want at least 100", len(rows))
		}

		before := h.counts(ctx)
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				r := h.send(row)
				if r.Code >= 500 {
					t.Fatalf("status %d; body %s", r.Code, r.Body)
				}
				p := r.problemIs(t, row.status, row.code)
				checkNoLeak(t, p.Reason)
				if row.status == 405 && !strings.Contains(r.Header.Get("Allow"), "GET") {
					t.Errorf("405 without the route's methods in Allow: %q", r.Header.Get("Allow"))
				}
				for _, secret := range []string{"\x00", "\xff", "\x1b"} {
					if strings.Contains(string(r.Body), secret) {
						t.Errorf("the body echoes a control byte or invalid UTF-8: %q", r.Body)
					}
				}
			})
		}
		if after := h.counts(ctx); after != before {
			t.Errorf("refused requests wrote: rows and balances %v before, %v after", before, after)
		}
		log := logs.String()
		for _, leak := range []string{"level=ERROR", "SQLSTATE", "goroutine ", "panic", ".go:"} {
			if strings.Contains(log, leak) {
				t.Errorf("the log holds %q:\n%s", leak, log)
			}
		}
	})
}

// hostileKit is the set-up instance and the credentials of the test.
type hostileKit struct {
	t                       *testing.T
	e                       *env
	db                      *store.DB
	admin, nonAdmin         []string
	revoked, expired        []string
	expiredJWT, otherSecret []string
	algNone, emptyKey       []string
	walletID                string
}

func newHostileKit(t *testing.T, e *env, db *store.DB) *hostileKit {
	ctx := context.Background()
	h := &hostileKit{t: t, e: e, db: db}
	e.do("POST", "/v1/auth/sign-up", map[string]any{"password": "correct horse battery"}).expect(t, 200)
	h.admin = bearer(e.adminToken())
	e.do("GET", "/v1/me", nil, h.admin...).expect(t, 200)
	h.nonAdmin = apiKey(e.makeKey("bob", auth.AllScopes))
	e.do("GET", "/v1/me", nil, h.nonAdmin...).expect(t, 200)

	revoked := e.makeKey(auth.AdminUserID, auth.AllScopes)
	var keys []struct{ ID, Name string }
	e.do("GET", "/v1/me/api-keys", nil, h.admin...).expect(t, 200).decodeJSON(t, &keys)
	e.do("DELETE", "/v1/me/api-keys/"+keys[0].ID, nil, h.admin...).expect(t, 204)
	h.revoked = apiKey(revoked)

	// A key that expired: made by a clock two years back, for an hour.
	back := auth.NewKeys(db)
	back.SetClock(func() time.Time { return time.Now().AddDate(-2, 0, 0) })
	adminP := &auth.Principal{UserID: auth.AdminUserID, Scopes: auth.AllScopes, Admin: true, Method: auth.MethodJWT}
	hour := int64(3600)
	expired, err := back.Create(ctx, adminP, auth.NewKey{UserID: auth.AdminUserID, Name: "expired", Permissions: auth.AllScopes.Names(), Expiry: &hour})
	if err != nil {
		t.Fatal(err)
	}
	h.expired = apiKey(expired.Key)

	// A JWT of the server's secret that expired.
	past, err := auth.NewTokens(ctx, db, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	past.SetClock(func() time.Time { return time.Now().Add(-48 * time.Hour) })
	tok, err := past.Issue(auth.AdminUserID, auth.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	h.expiredJWT = bearer(tok)
	claims := jwt.MapClaims{"sub": auth.AdminUserID, "scope": strings.Join(auth.AllScopes.Names(), " "),
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	h.algNone = bearer(none)
	other, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("not the server's secret"))
	if err != nil {
		t.Fatal(err)
	}
	h.otherSecret = bearer(other)
	// An HS256 token made with an empty key: the library refuses to sign
	// with one, so the signature is computed by hand.
	h.emptyKey = bearer(signEmptyKey(t, claims))

	var w struct{ ID string }
	e.do("POST", "/v1/wallets", map[string]any{"user_id": "carol"}, h.admin...).expect(t, 201).decodeJSON(t, &w)
	h.walletID = w.ID
	return h
}

// counts sums what a refused request must not change: the rows of every
// table of the API, and the balances.
func (h *hostileKit) counts(ctx context.Context) string {
	h.t.Helper()
	var out []string
	for _, q := range []string{
		"SELECT count(*) FROM wallets", "SELECT count(*) FROM invoices", "SELECT count(*) FROM payments",
		"SELECT count(*) FROM api_keys", "SELECT count(*) FROM api_keys WHERE revoked_at IS NULL",
		"SELECT count(*) FROM plugins", "SELECT count(*) FROM plugin_kv", "SELECT count(*) FROM settings",
		"SELECT coalesce(sum(available_msat), 0) FROM wallets",
	} {
		var n int64
		if err := h.db.R.QueryRowContext(ctx, q).Scan(&n); err != nil {
			h.t.Fatalf("%s: %v", q, err)
		}
		out = append(out, fmt.Sprint(n))
	}
	return strings.Join(out, "/")
}

// send makes the request exactly as the row says: no Content-Type unless
// the row sets one.
func (h *hostileKit) send(row hostileRow) response {
	var body *bytes.Reader
	if row.body != nil {
		body = bytes.NewReader(row.body)
	} else {
		body = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(row.method, "http://hearth.test/", body)
	req.RequestURI = row.path
	u, err := url.ParseRequestURI(row.path) // as the server parses it: no dot segment resolved
	if err != nil {
		h.t.Fatalf("%s: %v", row.path, err)
	}
	req.URL = u
	for i := 0; i+1 < len(row.headers); i += 2 {
		req.Header.Set(row.headers[i], row.headers[i+1])
	}
	if row.length != 0 {
		req.ContentLength = row.length
	}
	rec := httptest.NewRecorder()
	h.e.srv.ServeHTTP(rec, req)
	return response{Code: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// signEmptyKey signs claims with HS256 under an empty key.
func signEmptyKey(t testing.TB, claims jwt.MapClaims) string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	input := head + "." + enc.EncodeToString(mustJSON(t, claims))
	mac := hmac.New(sha256.New, nil)
	mac.Write([]byte(input))
	return input + "." + enc.EncodeToString(mac.Sum(nil))
}

// jsonCT is the Content-Type header pair of a JSON body.
var jsonCT = []string{"Content-Type", "application/json"}

func with(a []string, b ...string) []string { return append(append([]string{}, a...), b...) }

// mustJSON marshals v.
func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bad400 is a row refused as a bad request.
func bad400(name, method, path string, body []byte, headers []string) hostileRow {
	return hostileRow{name: name, method: method, path: path, body: body, headers: headers, status: 400, code: "invalid_request"}
}

// unknownID is a UUID that names nothing.
var unknownID = uuid.NewString()
