package api_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
)

// listed is a row of any list, as the pages order it.
type listed struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
}

var linkRel = regexp.MustCompile(`<([^>]*)>;\s*rel="(next|prev)"`)

// links reads a list's Link header: rel → URL.
func (r response) links() map[string]string {
	out := map[string]string{}
	for _, m := range linkRel.FindAllStringSubmatch(r.Header.Get("Link"), -1) {
		out[m[2]] = m[1]
	}
	return out
}

// list reads one page of path.
func (e *env) list(t testing.TB, path string, headers ...string) ([]listed, response) {
	t.Helper()
	r := e.do("GET", path, nil, headers...).expect(t, 200)
	var rows []listed
	r.decodeJSON(t, &rows)
	return rows, r
}

// pageThrough follows path's Link rel="next" to the last page, calling
// between (when set) after each page but the last, and returns the ids
// read in order; it fails on an id read twice.
func (e *env) pageThrough(t testing.TB, path string, between func(), headers ...string) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	for pages := 0; path != ""; pages++ {
		if pages > 100 {
			t.Fatalf("more than 100 pages from %s", path)
		}
		rows, r := e.list(t, path, headers...)
		for _, row := range rows {
			if seen[row.ID] {
				t.Fatalf("%s: %s read twice", path, row.ID)
			}
			seen[row.ID] = true
			ids = append(ids, row.ID)
		}
		path = r.links()["next"]
		if path != "" && between != nil {
			between()
		}
	}
	return ids
}

// idsOf are the rows' ids, in order.
func idsOf(rows []listed) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

// TestCursorPagesVisitEachRowOnce pages through every list of invoices
// and payments, a few rows at a time, both ways and with filters, over
// rows that share their created_at: the pages hold each row once, in the
// order of the whole list.
func TestCursorPagesVisitEachRowOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 10_000_000)
		var second struct{ ID, Key string }
		e.do("POST", "/v1/me/api-keys", map[string]any{"name": "shop", "permissions": auth.AllScopes.Names()}, alice.key...).
			expect(t, 201).decodeJSON(t, &second)
		shop := apiKey(second.Key)
		// Four rows at each instant: ties that only the id orders.
		base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
		for i := range 14 {
			at := base.Add(time.Duration(i/4) * time.Millisecond)
			e.ledger.SetClock(func() time.Time { return at })
			inv := bob.invoice(t, 1000+int64(i))
			payer := alice.key
			if i%3 == 0 {
				payer = shop
			}
			e.do("POST", "/v1/me/payments", map[string]any{"input": inv.LnInvoice.Bolt11}, payer...).expect(t, 201)
			if i%5 == 0 {
				bob.invoice(t, 7) // left Pending
			}
			if i%4 == 1 { // left to expire a second later
				e.do("POST", "/v1/me/invoices", map[string]any{"amount_msat": 9, "expiry": 1}, bob.key...).expect(t, 201)
			}
		}
		e.ledger.SetClock(time.Now)
		// The node dates an invoice by the real clock: wait until the four
		// of one second have expired, not a guessed time.
		poll.Until(t, time.Minute, func() error {
			if rows, _ := e.list(t, "/v1/me/invoices?limit=1000&status=Expired", bob.key...); len(rows) < 4 {
				return fmt.Errorf("%d of 4 invoices expired", len(rows))
			}
			return nil
		})
		admin := bearer(e.adminToken())
		for _, c := range []struct {
			path    string
			headers []string
		}{
			{"/v1/me/payments?limit=3", alice.key},
			{"/v1/me/payments?limit=5&status=Settled&ledger=Internal", alice.key},
			{"/v1/me/payments?limit=2&api_key_id=" + second.ID, alice.key},
			{"/v1/me/invoices?limit=4", bob.key},
			{"/v1/me/invoices?limit=3&status=Pending", bob.key},
			{"/v1/me/invoices?limit=2&status=Expired", bob.key},
			{"/v1/payments?limit=4", admin},
			{"/v1/payments?limit=3&wallet_id=" + alice.id + "&status=Settled", admin},
			{"/v1/payments?limit=2&api_key_id=" + second.ID, admin},
			{"/v1/invoices?limit=5", admin},
			{"/v1/invoices?limit=1&status=Expired", admin},
			{"/v1/invoices?limit=3&ledger=Internal&wallet_id=" + bob.id, admin},
			{"/v1/wallets?limit=1", admin},
			{"/v1/api-keys?limit=1", admin},
		} {
			for _, dir := range []string{"Desc", "Asc"} {
				path := c.path + "&order_direction=" + dir
				whole, _ := e.list(t, strings.Replace(path, "limit=", "limit=1000&was=", 1), c.headers...)
				if len(whole) < 3 {
					t.Fatalf("%s: %d rows, too few to page", path, len(whole))
				}
				got := e.pageThrough(t, path, nil, c.headers...)
				if !slices.Equal(got, idsOf(whole)) {
					t.Errorf("%s: pages read\n%q\nthe whole list is\n%q", path, got, idsOf(whole))
				}
			}
		}
		// The rows did share their times, and the list orders them by id.
		whole, _ := e.list(t, "/v1/me/payments?limit=1000", alice.key...)
		ties := 0
		for i := 1; i < len(whole); i++ {
			if whole[i].CreatedAt.Equal(whole[i-1].CreatedAt) {
				ties++
				if whole[i].ID > whole[i-1].ID {
					t.Fatalf("rows of one instant out of order: %q before %q", whole[i-1].ID, whole[i].ID)
				}
			}
		}
		if ties < 6 {
			t.Fatalf("%d ties in %d payments", ties, len(whole))
		}
	})
}

// TestCursorPagesHoldStillWhileRowsComeIn pages through a wallet's
// payments, newest first, while it pays more: the pages hold each of the
// rows there were when it began, once, and none of the new ones.
func TestCursorPagesHoldStillWhileRowsComeIn(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 10_000_000)
		pay := func() {
			inv := bob.invoice(t, 1000)
			alice.pay(inv.LnInvoice.Bolt11).expect(t, 201)
		}
		for range 10 {
			pay()
		}
		whole, _ := e.list(t, "/v1/me/payments?limit=1000", alice.key...)
		got := e.pageThrough(t, "/v1/me/payments?limit=3", func() { pay(); pay() }, alice.key...)
		if !slices.Equal(got, idsOf(whole)) {
			t.Fatalf("pages read\n%q\nwhile there were\n%q", got, idsOf(whole))
		}
		// Oldest first, the new rows come after the old ones, each once.
		got = e.pageThrough(t, "/v1/me/payments?limit=4&order_direction=Asc", pay, alice.key...)
		slices.Reverse(whole)
		if len(got) < len(whole)+3 || !slices.Equal(got[:len(whole)], idsOf(whole)) {
			t.Fatalf("oldest first, pages read\n%q\nafter\n%q", got, idsOf(whole))
		}
	})
}

// TestCursorLinks checks the Link header: next while rows follow, none on
// the last page (not even a full one), prev back to the page before, and
// the list's other parameters kept.
func TestCursorLinks(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		bob := e.user("bob")
		for range 6 {
			bob.invoice(t, 1000)
		}
		_, r := e.list(t, "/v1/me/invoices?limit=6", bob.key...)
		if h := r.Header.Get("Link"); h != "" {
			t.Fatalf("a full last page has Link %q", h)
		}
		first, r := e.list(t, "/v1/me/invoices?limit=2&status=Pending&ledger=Lightning", bob.key...)
		next := r.links()["next"]
		if r.links()["prev"] != "" || !strings.HasPrefix(next, "/v1/me/invoices?") {
			t.Fatalf("first page's Link %q", r.Header.Get("Link"))
		}
		for _, p := range []string{"status=Pending", "ledger=Lightning", "limit=2", "after="} {
			if !strings.Contains(next, p) {
				t.Fatalf("next %q lacks %s", next, p)
			}
		}
		second, r := e.list(t, next, bob.key...)
		back, r2 := e.list(t, r.links()["prev"], bob.key...)
		if !slices.Equal(idsOf(back), idsOf(first)) || r2.links()["prev"] != "" {
			t.Fatalf("prev of %q gave %q (Link %q), want %q", idsOf(second), idsOf(back), r2.Header.Get("Link"), idsOf(first))
		}
		again, _ := e.list(t, r2.links()["next"], bob.key...)
		if !slices.Equal(idsOf(again), idsOf(second)) {
			t.Fatalf("next of prev gave %q, want %q", idsOf(again), idsOf(second))
		}
		// An offset page's next goes on by cursor.
		off, r := e.list(t, "/v1/me/invoices?limit=2&offset=2", bob.key...)
		if !slices.Equal(idsOf(off), idsOf(second)) || !strings.Contains(r.links()["next"], "after=") ||
			strings.Contains(r.links()["next"], "offset") {
			t.Fatalf("offset page %q, Link %q", idsOf(off), r.Header.Get("Link"))
		}
	})
}

// TestMalformedCursor is refused with 400 and a JSON reason.
func TestMalformedCursor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	admin := bearer(e.adminToken())
	bob := e.user("bob")
	bob.invoice(t, 1000)
	bob.invoice(t, 1000)
	_, r := e.list(t, "/v1/me/invoices?limit=1", bob.key...)
	next := r.links()["next"]
	if !strings.Contains(next, "after=") {
		t.Fatalf("no next page in Link %q", r.Header.Get("Link"))
	}
	cursor := next[strings.Index(next, "after=")+len("after="):]
	if i := strings.IndexByte(cursor, '&'); i >= 0 {
		cursor = cursor[:i]
	}
	for _, path := range []string{
		"/v1/me/invoices?after=not*base64",
		"/v1/me/invoices?after=AAAA",
		"/v1/me/invoices?before=" + cursor[:len(cursor)-2],
		"/v1/me/payments?after=" + strings.Repeat("A", 300),
		"/v1/me/payments?after=" + cursor + "&before=" + cursor,
		"/v1/me/payments?after=" + cursor + "&offset=2",
		"/v1/payments?before=" + strings.Repeat("_", 40),
	} {
		r := e.do("GET", path, nil, bob.key...)
		if strings.HasPrefix(path, "/v1/payments") {
			r = e.do("GET", path, nil, admin...)
		}
		r.expect(t, 400)
		if p := r.problem(t); p.Code != "invalid_request" {
			t.Errorf("%s: code %q", path, p.Code)
		}
	}
}

// TestOpenAPIDocumentsCursors: every list of invoices, payments, wallets
// and API keys names after and before among its parameters and the Link
// header among its answer's headers.
func TestOpenAPIDocumentsCursors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	doc, err := openapi3.NewLoader().LoadFromData(e.do("GET", "/v1/openapi.json", nil).expect(t, 200).Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/me/invoices", "/v1/me/payments", "/v1/invoices", "/v1/payments", "/v1/wallets",
		"/v1/api-keys", "/v1/me/api-keys"} {
		op := doc.Paths.Find(path).Get
		for _, name := range []string{"after", "before", "limit", "offset"} {
			if p := op.Parameters.GetByInAndName("query", name); p == nil {
				t.Errorf("GET %s lacks the parameter %s", path, name)
			}
		}
		if ok := op.Responses.Status(200); ok == nil || ok.Value.Headers["Link"] == nil {
			t.Errorf("GET %s: its answer names no Link header", path)
		}
	}
	if doc.Paths.Find("/v1/payments").Get.Parameters.GetByInAndName("query", "api_key_id") == nil {
		t.Error("GET /v1/payments lacks api_key_id")
	}
}
