package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/export"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// seedPayments writes n Settled payments of walletID straight into the
// table, tie rows at each microsecond from base on, and returns their ids
// in the exports' order: by created_at, then id.
func seedPayments(t testing.TB, db *store.DB, walletID string, n, tie int, base time.Time) []string {
	t.Helper()
	rows := make([]ledger.Payment, n)
	for i := range rows {
		at := base.Add(time.Duration(i/tie) * time.Microsecond)
		hash := fmt.Sprintf("%064x", i)
		rows[i] = ledger.Payment{ID: uuid.NewString(), WalletID: walletID, AmountMsat: int64(1000 + i), Status: ledger.StatusSettled,
			Ledger: ledger.LedgerInternal, CreatedAt: at, PaymentTime: &at, PaymentHash: &hash}
	}
	for chunk := range slices.Chunk(rows, 500) {
		if _, err := db.W.NewInsert().Model(&chunk).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(rows, func(a, b ledger.Payment) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	ids := make([]string, n)
	for i := range rows {
		ids[i] = rows[i].ID
	}
	return ids
}

// TestExportPagesOverTies exports more rows than a page holds, with
// created_at shared by seven rows at a time so that ties cross the pages'
// boundaries: every row once, in (created_at, id) order, in CSV and JSON
// Lines, of the wallet asked for.
func TestExportPagesOverTies(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		base := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		n := 2*export.PageRows + 503
		mine := seedPayments(t, db, alice.id, n, 7, base)
		theirs := seedPayments(t, db, bob.id, 300, 3, base.Add(100*time.Microsecond))

		x := e.exportCSV(t, "/v1/me/payments/export", alice.key...)
		if got := x.ids(); !slices.Equal(got, mine) {
			t.Fatalf("CSV: %d rows, want %d in order (first difference at %d)", len(got), len(mine), firstDiff(got, mine))
		}
		r := e.do("GET", "/v1/me/payments/export?format=jsonl", nil, alice.key...).expect(t, 200)
		if ct := r.Header.Get("Content-Type"); ct != "application/jsonl; charset=utf-8" {
			t.Fatalf("JSON Lines: Content-Type %q", ct)
		}
		var got []string
		sc := bufio.NewScanner(bytes.NewReader(r.Body))
		for sc.Scan() {
			var p ledger.Payment
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				t.Fatalf("line %d: %v", len(got)+1, err)
			}
			got = append(got, p.ID)
		}
		if !slices.Equal(got, mine) {
			t.Fatalf("JSON Lines: %d rows, want %d in order (first difference at %d)", len(got), len(mine), firstDiff(got, mine))
		}

		all := append(slices.Clone(mine), theirs...)
		x = e.exportCSV(t, "/v1/payments/export", bearer(e.adminToken())...)
		if len(x.rows) != len(all) {
			t.Fatalf("the admin's export: %d rows, want %d", len(x.rows), len(all))
		}
		slices.Sort(all)
		if got := slices.Sorted(slices.Values(x.ids())); !slices.Equal(got, all) {
			t.Fatalf("the admin's export holds other rows than the wallets'")
		}
		for i := 1; i < len(x.rows); i++ {
			prev, cur := x.col(t, i-1, "created_at")+" "+x.rows[i-1][0], x.col(t, i, "created_at")+" "+x.rows[i][0]
			if parse(t, x.col(t, i-1, "created_at")).After(parse(t, x.col(t, i, "created_at"))) ||
				(x.col(t, i-1, "created_at") == x.col(t, i, "created_at") && x.rows[i-1][0] > x.rows[i][0]) {
				t.Fatalf("out of order: %s before %s", prev, cur)
			}
		}
	})
}

func parse(t testing.TB, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// failingLedger is the real ledger whose payment lists fail after ok
// calls, as a database that goes away in the middle of an export.
type failingLedger struct {
	api.Ledger
	ok    int32
	calls atomic.Int32
}

func (l *failingLedger) Payments(ctx context.Context, f ledger.Filter) ([]ledger.Payment, error) {
	if l.calls.Add(1) > l.ok {
		return nil, errors.New("the database went away")
	}
	return l.Ledger.Payments(ctx, f)
}

// TestExportCutShort: an export that fails after its first page went out
// ends with the connection cut before the answer's end, which the client
// reads as an error, never as a whole file; one that fails before any row
// is an error answer.
func TestExportCutShort(t *testing.T) {
	t.Parallel()
	for _, ok := range []int32{0, 1} {
		t.Run(fmt.Sprintf("after %d pages", ok), func(t *testing.T) {
			t.Parallel()
			storetest.Each(t, func(t *testing.T, db *store.DB) { exportCutAfter(t, db, ok) })
		})
	}
}

// exportCutAfter exports payments from a ledger that fails after ok pages.
func exportCutAfter(t *testing.T, db *store.DB, ok int32) {
	fail := &failingLedger{ok: ok}
	e := newEnv(t, db, func(_ *config.Config, d *api.Deps) {
		fail.Ledger = d.Ledger
		d.Ledger = fail
	})
	alice := e.user("alice")
	seedPayments(t, db, alice.id, export.PageRows+500, 2, time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
	srv := httptest.NewServer(e.srv)
	req, err := http.NewRequest("GET", srv.URL+"/v1/me/payments/export", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(alice.key[0], alice.key[1])
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	srv.Close()
	if ok == 0 {
		if res.StatusCode != 500 || err != nil || res.Header.Get("Content-Disposition") != "" {
			t.Fatalf("failing at once: %d %v %q", res.StatusCode, err, body)
		}
		response{Code: res.StatusCode, Header: res.Header, Body: body}.problem(t)
		return
	}
	if res.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("failing after a page: status %d, read error %v, want 200 and %v", res.StatusCode, err, io.ErrUnexpectedEOF)
	}
	rows, _ := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if len(rows) < 2 || len(rows) > export.PageRows+1 || rows[0][0] != "id" {
		t.Fatalf("failing after a page: the client read %d lines", len(rows))
	}
}
