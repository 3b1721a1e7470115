package migrations_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// listPlan is a list the API offers and the index that must serve it.
type listPlan struct {
	name     string
	invoices bool
	filter   ledger.Filter
	// index is the index that reads the list in its order; or, when the
	// planner weighs it cheaper, one of or: an index in the same order
	// whose rows the filter thins.
	index string
	or    []string
	// few, when set, is an index of rows that stay few (live Pending
	// ones): reading it and sorting what it holds is as good.
	few string
}

// orders reports whether index reads list in its order.
func (list listPlan) orders(index string) bool {
	return index == list.index || slices.Contains(list.or, index)
}

// TestListsReadAnIndexInOrder plans every invoice and payment list, with
// each filter the API offers, for its first page and for a page after and
// before a cursor deep in the list, newest and oldest first, on a table
// of 20,000 rows: each reads an index in the list's order, from the
// cursor on, and neither reads the whole table nor sorts it.
func TestListsReadAnIndexInOrder(t *testing.T) {
	t.Parallel()
	const wallet, key = "w7", "k7"
	byWallet := []string{"payments_created_idx"}
	lists := []listPlan{
		{name: "admin's payments", index: "payments_created_idx"},
		{name: "a wallet's payments", filter: ledger.Filter{WalletID: wallet}, index: "payments_wallet_idx", or: byWallet},
		{name: "a wallet's settled internal payments", filter: ledger.Filter{WalletID: wallet, Status: "Settled", Ledger: "Internal"}, index: "payments_wallet_idx", or: byWallet},
		{name: "settled payments", filter: ledger.Filter{Status: "Settled"}, index: "payments_created_idx"},
		{name: "failed payments", filter: ledger.Filter{Status: "Failed"}, index: "payments_failed_idx"},
		{name: "pending payments", filter: ledger.Filter{Status: "Pending"}, index: "payments_created_idx", few: "payments_pending_idx"},
		{name: "Lightning payments", filter: ledger.Filter{Ledger: "Lightning"}, index: "payments_lightning_idx"},
		{name: "on-chain payments", filter: ledger.Filter{Ledger: "Onchain"}, index: "payments_onchain_idx"},
		{name: "internal payments", filter: ledger.Filter{Ledger: "Internal"}, index: "payments_created_idx"},
		// payments_api_key_idx is PostgreSQL's alone.
		{name: "a key's payments", filter: ledger.Filter{APIKeyID: key}, index: "payments_api_key_idx", or: byWallet},
		{name: "a wallet's payments by a key", filter: ledger.Filter{WalletID: wallet, APIKeyID: key}, index: "payments_wallet_idx",
			or: append([]string{"payments_api_key_idx"}, byWallet...)},
		{name: "admin's invoices", invoices: true, index: "invoices_created_idx"},
		{name: "a wallet's invoices", invoices: true, filter: ledger.Filter{WalletID: wallet}, index: "invoices_wallet_idx", or: []string{"invoices_created_idx"}},
		{name: "a wallet's settled invoices", invoices: true, filter: ledger.Filter{WalletID: wallet, Status: "Settled"}, index: "invoices_wallet_idx", or: []string{"invoices_created_idx"}},
		{name: "settled invoices", invoices: true, filter: ledger.Filter{Status: "Settled"}, index: "invoices_created_idx"},
		{name: "expired invoices", invoices: true, filter: ledger.Filter{Status: "Expired"}, index: "invoices_created_idx"},
		{name: "pending invoices", invoices: true, filter: ledger.Filter{Status: "Pending"}, index: "invoices_created_idx", few: "invoices_pending_idx"},
		{name: "internal invoices", invoices: true, filter: ledger.Filter{Ledger: "Internal"}, index: "invoices_created_idx"},
		{name: "on-chain invoices", invoices: true, filter: ledger.Filter{Ledger: "Onchain"}, index: "invoices_onchain_idx"},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		seedLists(t, db)
		ctx := context.Background()
		log := &queryLog{}
		db.R.AddQueryHook(log)
		l := ledger.New(db, nil, nil, ledger.Config{}, nil)
		// A cursor half way down each table.
		mid := func(table, id string) *store.Cursor {
			var at time.Time
			if err := db.R.NewSelect().Table(table).Column("created_at").Where("id = ?", id).Scan(ctx, &at); err != nil {
				t.Fatal(err)
			}
			return &store.Cursor{CreatedAt: at, ID: id}
		}
		midPayment, midInvoice := mid("payments", "p0010000"), mid("invoices", "i0010000")
		for _, list := range lists {
			c := midPayment
			if list.invoices {
				c = midInvoice
			}
			for _, page := range []struct {
				name string
				page store.Page
			}{
				{"first page", store.Page{Limit: 101}},
				{"oldest first", store.Page{Limit: 101, Asc: true}},
				{"after a cursor", store.Page{Limit: 101, After: c}},
				{"after a cursor, oldest first", store.Page{Limit: 101, After: c, Asc: true}},
				{"before a cursor", store.Page{Limit: 101, Before: c}},
			} {
				f := list.filter
				f.Page = page.page
				var err error
				if list.invoices {
					_, err = l.Invoices(ctx, f)
				} else {
					_, err = l.Payments(ctx, f)
				}
				if err != nil {
					t.Fatalf("%s, %s: %v", list.name, page.name, err)
				}
				q := log.take()
				if err := checkPlan(ctx, db, q, list, page.page.After != nil || page.page.Before != nil); err != nil {
					t.Errorf("%s, %s: %v\n%s", list.name, page.name, err, q)
				}
			}
		}
	})
}

// checkPlan explains q and says what is wrong with its plan for list: not
// read through list's index (or its index of few rows, then sorted), a
// table read whole, a sort of what list's index read, or, for a page from
// a cursor, the cursor not a range of the index. On SQLite, that is the
// plan Hearth gets (it takes no statistics). On PostgreSQL, whose planner
// may sort a few hundred rows of 20,000 rather than read them in order,
// the plan must read no table whole, and without sorts (enable_sort off)
// it must read list's index: the index can serve the order at any size,
// where the planner will prefer it.
func checkPlan(ctx context.Context, db *store.DB, q string, list listPlan, cursor bool) error {
	var steps []planStep
	var err error
	if db.Dialect == store.Postgres {
		if steps, err = planOfPostgres(ctx, db, q, false); err != nil {
			return err
		}
		for _, s := range steps {
			if s.wholeTable {
				return fmt.Errorf("reads a table whole: %v", steps)
			}
		}
		steps, err = planOfPostgres(ctx, db, q, true)
	} else {
		steps, err = planOfSQLite(ctx, db, q)
	}
	if err != nil {
		return err
	}
	var used *planStep
	sorted := false
	for i, s := range steps {
		switch {
		case s.wholeTable:
			return fmt.Errorf("reads a table whole: %v", steps)
		case s.sort:
			sorted = true
		case list.orders(s.index) || (list.few != "" && s.index == list.few):
			used = &steps[i]
		}
	}
	switch {
	case used == nil:
		return fmt.Errorf("not read through %s %v: %v", list.index, list.or, steps)
	case used.index == list.few:
		return nil // its few rows, sorted
	case sorted:
		return fmt.Errorf("sorts what %s read: %v", list.index, steps)
	case cursor && !strings.Contains(used.cond, "created_at"):
		return fmt.Errorf("the cursor is no range of %s: %v", list.index, steps)
	}
	return nil
}

// planStep is what a plan says of one of its steps.
type planStep struct {
	what       string // the step, as the plan names it
	index      string // the index it reads, if any
	cond       string // what bounds its range of the index
	wholeTable bool   // it reads a table whole
	sort       bool   // it sorts rows
}

// planOfPostgres is PostgreSQL's plan of q, with sorts or without
// (noSort: enable_sort off, which leaves a sort only where no index can
// read the rows in their order).
func planOfPostgres(ctx context.Context, db *store.DB, q string, noSort bool) ([]planStep, error) {
	tx, err := db.R.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // read only
	if noSort {
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_sort = off"); err != nil {
			return nil, err
		}
	}
	var out string
	if err := tx.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+q).Scan(&out); err != nil {
		return nil, fmt.Errorf("explaining: %w", err)
	}
	type node struct {
		NodeType  string `json:"Node Type"`
		IndexName string `json:"Index Name"`
		IndexCond string `json:"Index Cond"`
		Plans     []node `json:"Plans"`
	}
	var plans []struct{ Plan node }
	if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) != 1 {
		return nil, fmt.Errorf("reading the plan %s: %v", out, err)
	}
	var steps []planStep
	var walk func(n node)
	walk = func(n node) {
		steps = append(steps, planStep{what: n.NodeType, index: n.IndexName, cond: n.IndexCond,
			wholeTable: n.NodeType == "Seq Scan", sort: strings.Contains(n.NodeType, "Sort")})
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return steps, nil
}

func planOfSQLite(ctx context.Context, db *store.DB, q string) ([]planStep, error) {
	rows, err := db.R.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q)
	if err != nil {
		return nil, fmt.Errorf("explaining: %w", err)
	}
	defer rows.Close()
	var steps []planStep
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		s := planStep{what: detail, sort: strings.Contains(detail, "TEMP B-TREE")}
		if _, rest, ok := strings.Cut(detail, " INDEX "); ok {
			s.index, s.cond, _ = strings.Cut(rest, " ")
		} else if strings.HasPrefix(detail, "SCAN ") {
			s.wholeTable = true
		}
		steps = append(steps, s)
	}
	return steps, rows.Err()
}

func (s planStep) String() string {
	if s.index != "" && !strings.Contains(s.what, s.index) {
		return s.what + " " + s.index + " " + s.cond
	}
	return s.what
}

// On SQLite a wallet's payments in the lists' order carry the key that
// made each (20261202000001): the filter by key is read from the index,
// and only the payments it keeps are looked up.
func TestSQLiteWalletOrderHoldsTheKey(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	var cols []string
	if err := db.R.NewRaw("SELECT name FROM pragma_index_info('payments_wallet_idx') ORDER BY seqno").Scan(context.Background(), &cols); err != nil {
		t.Fatal(err)
	}
	if want := []string{"wallet_id", "created_at", "id", "api_key_id"}; !slices.Equal(cols, want) {
		t.Fatalf("payments_wallet_idx holds %v, want %v", cols, want)
	}
}
