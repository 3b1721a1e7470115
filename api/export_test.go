package api_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// exported is a CSV export as read back: its header and rows.
type exported struct {
	header []string
	rows   [][]string
}

// col is the cell of row i under name.
func (x exported) col(t testing.TB, i int, name string) string {
	t.Helper()
	j := slices.Index(x.header, name)
	if j < 0 {
		t.Fatalf("no column %q in %q", name, x.header)
	}
	return x.rows[i][j]
}

// ids are the rows' ids, in order.
func (x exported) ids() []string {
	out := make([]string, len(x.rows))
	for i, r := range x.rows {
		out[i] = r[0]
	}
	return out
}

// exportCSV reads a CSV export of path, checking its headers.
func (e *env) exportCSV(t testing.TB, path string, headers ...string) exported {
	t.Helper()
	r := e.do("GET", path, nil, headers...).expect(t, 200)
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("%s: Content-Type %q", path, ct)
	}
	if cd := r.Header.Get("Content-Disposition"); !attachment.MatchString(cd) {
		t.Fatalf("%s: Content-Disposition %q", path, cd)
	}
	recs, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: reading the CSV: %v\n%s", path, err, r.Body)
	}
	return exported{header: recs[0], rows: recs[1:]}
}

var attachment = regexp.MustCompile(`^attachment; filename="?hearth-(payments|invoices)-\d{4}-\d\d-\d\d\.(csv|jsonl)"?$`)

// setCreated moves a record's created_at, as if it had been made then.
func setCreated(t testing.TB, db *store.DB, table, id string, at time.Time) {
	t.Helper()
	if _, err := db.W.NewUpdate().Table(table).Set("created_at = ?", at.UTC()).Where("id = ?", id).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestExportContentAndEscaping exports payments and invoices whose
// descriptions hold commas, quotes, line breaks and spreadsheet formulas:
// each reads back as it was, a formula defused with an apostrophe.
func TestExportContentAndEscaping(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 10_000_000)
		descs := []string{`coffee, two`, `say "hi"`, "two\nlines\r\nthree", `=HYPERLINK("http://x","y")`,
			"+1", "-2", "@SUM(A1)", "\tcmd", "\rcmd", "plain Ünïcode ☕"}
		want := map[string]string{}
		for i, d := range descs {
			var inv ledger.Invoice
			e.do("POST", "/v1/me/invoices", map[string]any{"amount_msat": 1_234 + int64(i), "description": d}, bob.key...).
				expect(t, 201).decodeJSON(t, &inv)
			alice.pay(inv.LnInvoice.Bolt11).expect(t, 201)
			want[inv.LnInvoice.PaymentHash] = d
		}
		for _, path := range []string{"/v1/me/payments/export", "/v1/me/invoices/export?format=csv"} {
			key := alice.key
			if path != "/v1/me/payments/export" {
				key = bob.key
			}
			x := e.exportCSV(t, path, key...)
			if len(x.rows) != len(descs) {
				t.Fatalf("%s: %d rows, want %d", path, len(x.rows), len(descs))
			}
			for i := range x.rows {
				// A line break inside a cell is kept as it is; Go's reader
				// reads \r\n there as \n.
				d := strings.ReplaceAll(want[x.col(t, i, "payment_hash")], "\r\n", "\n")
				if d[0] == '=' || d[0] == '+' || d[0] == '-' || d[0] == '@' || d[0] == '\t' || d[0] == '\r' {
					d = "'" + d
				}
				if got := x.col(t, i, "description"); got != d {
					t.Errorf("%s row %d: description %q, want %q", path, i, got, d)
				}
				if x.col(t, i, "status") != "Settled" || x.col(t, i, "ledger") != "Internal" || x.col(t, i, "payment_time") == "" {
					t.Errorf("%s row %d: %q", path, i, x.rows[i])
				}
			}
			if slices.Contains(x.header, "wallet_id") {
				t.Errorf("%s: a wallet's own export has a wallet_id column", path)
			}
		}
		// Quoted as RFC 4180 says, the line breaks kept byte for byte.
		raw := e.do("GET", "/v1/me/payments/export", nil, alice.key...).Body
		for _, cell := range []string{"\"coffee, two\"", `"say ""hi"""`, "\"two\nlines\r\nthree\"", `"'=HYPERLINK(""http://x"",""y"")"`, "\"'\rcmd\""} {
			if !bytes.Contains(raw, []byte(","+cell+",")) {
				t.Errorf("the CSV lacks the cell %q:\n%s", cell, raw)
			}
		}
		x := e.exportCSV(t, "/v1/me/payments/export", alice.key...)
		if x.col(t, 0, "amount_msat") != "1234" || x.col(t, 0, "amount_sat") != "1.234" || x.col(t, 0, "fee_msat") != "0" ||
			x.col(t, 0, "direction") != "Sent" || x.col(t, 0, "bolt11") == "" || x.col(t, 9, "amount_sat") != "1.243" {
			t.Errorf("first payment %q, tenth %q", x.rows[0], x.rows[9])
		}
		x = e.exportCSV(t, "/v1/me/invoices/export", alice.key...)
		if len(x.rows) != 1 || x.col(t, 0, "amount_received_msat") != "10000000" || x.col(t, 0, "amount_received_sat") != "10000.000" ||
			x.col(t, 0, "direction") != "Received" {
			t.Errorf("alice's invoices %q", x.rows)
		}
		// An export of nothing is its header alone.
		x = e.exportCSV(t, "/v1/me/payments/export", bob.key...)
		if len(x.rows) != 0 || x.header[0] != "id" {
			t.Errorf("bob's payments %q %q", x.header, x.rows)
		}
	})
}

// TestExportDateRange: from is inclusive, to exclusive, to the
// microsecond; a date is its midnight in UTC; an RFC 3339 time may carry
// an offset.
func TestExportDateRange(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 10_000_000)
		day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		at := map[string]time.Time{
			"before":   day.Add(-time.Microsecond),
			"first":    day,
			"last":     day.Add(24*time.Hour - time.Microsecond),
			"next day": day.Add(24 * time.Hour),
		}
		pays, invs := map[string]string{}, map[string]string{}
		for name, when := range at {
			inv := bob.invoice(t, 1000)
			var p ledger.Payment
			alice.pay(inv.LnInvoice.Bolt11).expect(t, 201).decodeJSON(t, &p)
			setCreated(t, db, "payments", p.ID, when)
			setCreated(t, db, "invoices", inv.ID, when)
			pays[p.ID], invs[inv.ID] = name, name
		}
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"from=2026-11-01&to=2026-11-02", []string{"first", "last"}},
			{"from=2026-11-01T01:00:00%2B01:00&to=2026-11-01T23:59:59.999999Z", []string{"first"}},
			{"from=2026-11-01T00:00:00.000001Z&to=2026-11-01T23:59:59.9999991Z", []string{"last"}},
			{"to=2026-11-01", []string{"before"}},
			{"from=2026-11-02", []string{"next day"}},
			{"from=2026-10-31&to=2026-11-03", []string{"before", "first", "last", "next day"}},
		} {
			for _, k := range []struct {
				path  string
				key   []string
				names map[string]string
			}{{"/v1/me/payments/export?", alice.key, pays}, {"/v1/me/invoices/export?", bob.key, invs}} {
				x := e.exportCSV(t, k.path+c.query, k.key...)
				var got []string
				for _, id := range x.ids() {
					got = append(got, k.names[id])
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("%s%s: %q, want %q", k.path, c.query, got, c.want)
				}
			}
		}
	})
}

// TestExportFilters: status, ledger and api_key_id as the lists take
// them; a wallet's export holds its own records only, the admin's every
// wallet's (with wallet_id) or wallet_id's.
func TestExportFilters(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob, carol := e.user("alice"), e.user("bob"), e.user("carol")
		alice.fund(t, 10_000_000)
		bob.fund(t, 10_000_000)
		var shop struct{ ID, Key string }
		e.do("POST", "/v1/me/api-keys", map[string]any{"name": "shop", "permissions": auth.AllScopes.Names()}, alice.key...).
			expect(t, 201).decodeJSON(t, &shop)
		var byShop []string
		for i := range 4 {
			inv := carol.invoice(t, 1000)
			if i%2 == 0 {
				alice.pay(inv.LnInvoice.Bolt11).expect(t, 201)
				continue
			}
			var p ledger.Payment
			e.do("POST", "/v1/me/payments", map[string]any{"input": inv.LnInvoice.Bolt11}, apiKey(shop.Key)...).expect(t, 201).decodeJSON(t, &p)
			byShop = append(byShop, p.ID)
		}
		bob.pay(carol.invoice(t, 2000).LnInvoice.Bolt11).expect(t, 201)
		carol.invoice(t, 5) // left Pending

		admin := bearer(e.adminToken())
		count := func(path string, headers []string, want int) exported {
			t.Helper()
			x := e.exportCSV(t, path, headers...)
			if len(x.rows) != want {
				t.Errorf("%s: %d rows, want %d: %q", path, len(x.rows), want, x.ids())
			}
			return x
		}
		count("/v1/me/payments/export", alice.key, 4)
		count("/v1/me/payments/export", bob.key, 1)
		count("/v1/me/payments/export?status=Failed", alice.key, 0)
		count("/v1/me/payments/export?status=Settled&ledger=Internal", alice.key, 4)
		count("/v1/me/payments/export?ledger=Lightning", alice.key, 0)
		if x := count("/v1/me/payments/export?api_key_id="+shop.ID, alice.key, 2); !slices.Equal(x.ids(), byShop) {
			t.Errorf("by the shop's key: %q, want %q", x.ids(), byShop)
		}
		count("/v1/me/invoices/export", carol.key, 6)
		count("/v1/me/invoices/export?status=Pending", carol.key, 1)
		count("/v1/me/invoices/export?status=Settled", carol.key, 5)

		all := count("/v1/payments/export", admin, 5)
		wallets := map[string]int{}
		for i := range all.rows {
			wallets[all.col(t, i, "wallet_id")]++
		}
		if wallets[alice.id] != 4 || wallets[bob.id] != 1 {
			t.Errorf("the admin's export by wallet: %v", wallets)
		}
		count("/v1/payments/export?wallet_id="+bob.id, admin, 1)
		count("/v1/invoices/export?wallet_id="+carol.id+"&status=Settled", admin, 5)
		count("/v1/invoices/export?status=Settled", admin, 7) // with alice's and bob's funding
	})
}

// TestExportAccess: read:transaction on the wallet's own; the admin
// principal and read:transaction across wallets; no credential, 401.
func TestExportAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	bob := e.user("bob")
	walletOnly := apiKey(e.makeKey("bob", auth.NewScopes(auth.ReadWallet)))
	adminNoRead := apiKey(e.makeKey(auth.AdminUserID, auth.NewScopes(auth.ReadWallet)))
	for _, c := range []struct {
		path    string
		headers []string
		status  int
	}{
		{"/v1/me/payments/export", nil, 401},
		{"/v1/me/invoices/export", walletOnly, 403},
		{"/v1/me/payments/export", walletOnly, 403},
		{"/v1/me/payments/export", bob.key, 200},
		{"/v1/payments/export", bob.key, 403},
		{"/v1/invoices/export?wallet_id=" + bob.id, bob.key, 403},
		{"/v1/payments/export", adminNoRead, 403},
		{"/v1/invoices/export", bearer(e.adminToken()), 200},
	} {
		r := e.do("GET", c.path, nil, c.headers...)
		if r.Code != c.status {
			t.Errorf("%s: %d, want %d: %s", c.path, r.Code, c.status, r.Body)
		} else if c.status != 200 {
			r.problem(t)
		}
	}
}

// TestExportBadQuery is refused with 400 and a JSON reason, before any
// row is written.
func TestExportBadQuery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	bob := e.user("bob")
	admin := bearer(e.adminToken())
	future := url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	for _, c := range []struct{ path, reason string }{
		{"/v1/me/payments/export?format=xlsx", "Invalid format"},
		{"/v1/me/payments/export?from=yesterday", "Invalid from"},
		{"/v1/me/payments/export?to=2026-13-01", "Invalid to"},
		{"/v1/me/payments/export?from=2026-11-01T00:00:00", "Invalid from"},
		{"/v1/me/invoices/export?from=2026-11-02&to=2026-11-01", "to must be after from"},
		{"/v1/me/invoices/export?from=2026-11-01&to=2026-11-01", "to must be after from"},
		{"/v1/me/invoices/export?from=" + future, "in the future"},
		{"/v1/me/payments/export?status=Expired", "status must be"},
		{"/v1/me/invoices/export?status=Failed", "status must be"},
		{"/v1/me/payments/export?ledger=Bank", "Invalid ledger"},
		{"/v1/me/payments/export?api_key_id=k1", "Invalid api_key_id"},
		{"/v1/payments/export?wallet_id=w1", "Invalid wallet_id"},
	} {
		path := c.path
		headers := bob.key
		if path[:6] != "/v1/me" {
			headers = admin
		}
		r := e.do("GET", path, nil, headers...).expect(t, 400)
		if p := r.problem(t); p.Code != "invalid_request" || !strings.Contains(p.Reason, c.reason) {
			t.Errorf("%s: %q %q, want a reason with %q", path, p.Code, p.Reason, c.reason)
		}
		if r.Header.Get("Content-Disposition") != "" {
			t.Errorf("%s: an error answer is an attachment", path)
		}
	}
}
