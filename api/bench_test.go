package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// The benchmarks measure an authenticated GET /v1/me/balance, the cheapest
// authenticated route, so that they time the authentication path: JWT
// verification or the API key lookup, then the wallet read. Each checks one
// answer before the timer starts, and every answer while it runs, so that it
// cannot silently measure errors.
//
//	go test ./api/ -run '^$' -bench . -benchmem
//
// The PostgreSQL variants run when HEARTH_TEST_POSTGRES_URL is set.

// databases are the databases under benchmark, by sub-benchmark name.
var databases = []struct {
	name string
	open func(testing.TB) *store.DB
}{
	{"sqlite", storetest.SQLite},
	{"postgres", storetest.Postgres},
}

const benchUser = "bench-user"

// credential returns the header pair that authenticates a request to e.
type credential func(e *env) []string

func jwtCredential(e *env) []string { return bearer(e.adminToken()) }

func apiKeyCredential(e *env) []string {
	return apiKey(e.makeKey(benchUser, auth.NewScopes(auth.ReadWallet)))
}

// balanceRequest returns a GET /v1/me/balance carrying header, and checks
// that the server answers it with 200, the wallet being created on the way.
func balanceRequest(b *testing.B, e *env, header []string) *http.Request {
	b.Helper()
	req := httptest.NewRequest("GET", "/v1/me/balance", nil)
	req.Header.Set(header[0], header[1])
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET /v1/me/balance = %d, want 200; body %s", rec.Code, rec.Body)
	}
	return req
}

func benchBalance(b *testing.B, cred credential) {
	for _, d := range databases {
		b.Run(d.name, func(b *testing.B) {
			e := newEnv(b, d.open(b), nil)
			req := balanceRequest(b, e, cred(e))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec := httptest.NewRecorder()
				e.srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET /v1/me/balance = %d; body %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

func BenchmarkBalanceJWT(b *testing.B) { benchBalance(b, jwtCredential) }

func BenchmarkBalanceAPIKey(b *testing.B) { benchBalance(b, apiKeyCredential) }

// BenchmarkBalanceAPIKeyParallel sends the requests from GOMAXPROCS
// goroutines, which on SQLite exercises the pool of reader connections.
func BenchmarkBalanceAPIKeyParallel(b *testing.B) {
	for _, d := range databases {
		b.Run(d.name, func(b *testing.B) {
			e := newEnv(b, d.open(b), nil)
			header := apiKeyCredential(e)
			balanceRequest(b, e, header)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				req := httptest.NewRequest("GET", "/v1/me/balance", nil)
				req.Header.Set(header[0], header[1])
				for pb.Next() {
					rec := httptest.NewRecorder()
					e.srv.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Errorf("GET /v1/me/balance = %d; body %s", rec.Code, rec.Body)
						return
					}
				}
			})
		})
	}
}

// BenchmarkAPIKeyLookup times auth.Keys.Authenticate alone: hashing the
// secret and finding the key and its owner's wallet, in the cache of keys
// in use ("cached") or, with the cache emptied before each call, by
// reading them from the database ("read").
func BenchmarkAPIKeyLookup(b *testing.B) {
	for _, d := range databases {
		for _, mode := range []string{"cached", "read"} {
			b.Run(d.name+"/"+mode, func(b *testing.B) {
				e := newEnv(b, d.open(b), nil)
				secret := e.makeKey(benchUser, auth.NewScopes(auth.ReadWallet))
				ctx := context.Background()
				w, err := e.wallets.Ensure(ctx, benchUser)
				if err != nil {
					b.Fatal(err)
				}
				p, id, err := e.keys.Authenticate(ctx, secret)
				if err != nil {
					b.Fatal(err)
				}
				if p.UserID != benchUser || !p.Scopes.Has(auth.ReadWallet) || p.Method != auth.MethodAPIKey {
					b.Fatalf("Authenticate = %+v, want %s with read:wallet by API key", p, benchUser)
				}
				if id != w.ID {
					b.Fatalf("Authenticate wallet = %q, want %s", id, w.ID)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if mode == "read" {
						e.db.Changed(store.AuthTopic)
					}
					if _, _, err := e.keys.Authenticate(ctx, secret); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPayInternal times POST /v1/me/payments of an invoice of another
// wallet of the instance, authenticated by API key: the whole internal
// payment path without the network. The invoices are issued before the
// timer starts; every answer must be a settled payment.
func BenchmarkPayInternal(b *testing.B) {
	for _, d := range databases {
		b.Run(d.name, func(b *testing.B) {
			e := newEnv(b, d.open(b), nil)
			payer, payee := e.user("bench-payer"), e.user("bench-payee")
			n := b.N
			payer.fund(b, int64(n)*1000)
			bolt11s := make([]string, n)
			for i := range bolt11s {
				inv, err := e.ledger.CreateInvoice(context.Background(), payee.id, ledger.NewInvoice{AmountMsat: 1000})
				if err != nil {
					b.Fatal(err)
				}
				bolt11s[i] = inv.Bolt11
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range n {
				req := httptest.NewRequest("POST", "/v1/me/payments", strings.NewReader(`{"input":"`+bolt11s[i]+`"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(payer.key[0], payer.key[1])
				rec := httptest.NewRecorder()
				e.srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusCreated {
					b.Fatalf("POST /v1/me/payments = %d; body %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
