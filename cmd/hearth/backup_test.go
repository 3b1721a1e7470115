package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// The restore drill, on each database: internal payments under load;
// `hearth backup` run mid-load as a process of its own, as an operator
// would; the archive restored by `hearth restore` into a fresh instance;
// `hearth ledger check` clean there; every balance equal to the source's
// at the backup's point; and the restored instance serves, with the
// source's token signing secret and node key: invoices the source issued
// before the backup pay into their wallets.
//
// The backup's point is the copy's snapshot (VACUUM INTO's read
// transaction; pg_dump's exported REPEATABLE READ snapshot). The source's
// balances at that point are computed from the load's own log: each
// wallet's funding plus the payments of the log that the restored ledger
// holds; the restored set must hold every payment answered before the
// backup process started and none sent after it ended, and on SQLite be
// exactly the source's payments up to the recorded outbox head (its one
// writer commits in event order). The manifest's point is checked against
// the same balances.
func TestBackupRestoreDrill(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			drill(t, db)
		})
	}
}

// instanceEnv is the environment of a new instance on db.
func instanceEnv(t *testing.T, db string) []string {
	t.Helper()
	env := []string{"HEARTH_DATA_DIR=" + filepath.Join(t.TempDir(), "data")}
	if db == "postgres" {
		env = append(env, "HEARTH_DATABASE_URL="+storetest.EmptyDatabaseURL(t, ""))
	}
	return env
}

// storeOf is the database of an instance's environment.
func storeOf(env []string) store.Options {
	var o store.Options
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "HEARTH_DATA_DIR":
			if o.PostgresURL == "" {
				o.SQLitePath = filepath.Join(v, "hearth.db")
			}
		case "HEARTH_DATABASE_URL":
			o.SQLitePath, o.PostgresURL = "", v
		}
	}
	return o
}

func drill(t *testing.T, db string) {
	srcEnv := instanceEnv(t, db)
	_, c := serveProcess(t, srcEnv)
	token := signUp(t, c)
	const wallets, funds = 4, 1_000_000
	ids := make([]string, wallets)
	kept := make([]string, wallets) // unpaid invoices of the source, paid after the restore
	for i := range ids {
		ids[i] = createWallet(t, c, token, fmt.Sprintf("user%d", i))
		c.expect(c.call("POST", "/v1/lightning-node/pay", fmt.Sprintf(`{"bolt11":%q}`, createInvoice(t, c, token, ids[i], funds)), token), 204)
		kept[i] = createInvoice(t, c, token, ids[i], int64(1000*(i+1)))
	}
	var srcInfo struct{ Pubkey string }
	c.decode(c.expect(c.call("GET", "/v1/lightning-node/info", "", token), 200), &srcInfo)

	load := startLoad(c, token, ids, 4)
	load.waitPaid(t, 200)
	archive := filepath.Join(t.TempDir(), "hearth.tar.gz")
	began := time.Now()
	out := runHearth(t, srcEnv, "backup", "--to", archive)
	ended := time.Now()
	load.waitPaid(t, 100)
	log := load.end(t)
	info, err := os.Stat(archive)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: backup of %d payments' ledger mid-load: %s, %d bytes; %d payments in all", db, countBefore(log, began), ended.Sub(began).Round(time.Millisecond), info.Size(), len(log))
	if !strings.Contains(out, "backup written: "+archive) {
		t.Fatalf("hearth backup said:\n%s", out)
	}
	m, err := backup.Verify(archive)
	if err != nil {
		t.Fatal(err)
	}

	dstEnv := instanceEnv(t, db)
	out = runHearth(t, dstEnv, "restore", "--from", archive)
	if !strings.Contains(out, "as the manifest says") {
		t.Fatalf("hearth restore said:\n%s", out)
	}
	if out := runHearth(t, dstEnv, "ledger", "check"); !strings.Contains(out, "every wallet balances") {
		t.Fatalf("ledger check of the restored instance:\n%s", out)
	}
	restored := settledPayments(t, storeOf(dstEnv))
	checkPoint(t, log, restored, began, ended)
	want := balancesOf(log, restored, wallets, funds)
	if db == "sqlite" {
		checkPrefix(t, settledPayments(t, storeOf(srcEnv)), restored, m.Point.OutboxHead)
	}
	var total int64
	for _, b := range want {
		total += b
	}
	if m.Point.AvailableMsat != total || m.Point.ReservedMsat != 0 || m.Point.PendingPayments != 0 || m.Point.Wallets != wallets+1 {
		t.Fatalf("manifest point %+v, want %d msat available in %d wallets (the admin's empty)", m.Point, total, wallets+1)
	}

	_, c2 := serveProcess(t, dstEnv)
	var dstInfo struct{ Pubkey string }
	c2.decode(c2.expect(c2.call("GET", "/v1/lightning-node/info", "", token), 200), &dstInfo) // the source's token
	if dstInfo.Pubkey != srcInfo.Pubkey {
		t.Fatalf("restored node key %s, source's %s", dstInfo.Pubkey, srcInfo.Pubkey)
	}
	for i, id := range ids {
		if got := balance(t, c2, token, id); got != want[i] {
			t.Errorf("wallet %d: restored %d msat, the source held %d at the backup's point", i, got, want[i])
		}
	}
	for i, bolt11 := range kept {
		c2.expect(c2.call("POST", "/v1/lightning-node/pay", fmt.Sprintf(`{"bolt11":%q}`, bolt11), token), 204)
		if got := balance(t, c2, token, ids[i]); got != want[i]+int64(1000*(i+1)) {
			t.Errorf("wallet %d after its invoice of before the backup was paid: %d msat, want %d", i, got, want[i]+int64(1000*(i+1)))
		}
	}
	if out := runHearth(t, dstEnv, "ledger", "check"); !strings.Contains(out, "every wallet balances") {
		t.Fatalf("ledger check of the restored instance after payments:\n%s", out)
	}
}

// settled is a settled payment: its id and event id.
type settled map[string]int64

// settledPayments reads the settled payments of a database.
func settledPayments(t *testing.T, o store.Options) settled {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.R.QueryContext(ctx, "SELECT id, event_id FROM payments WHERE status = 'Settled'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := settled{}
	for rows.Next() {
		var id string
		var ev int64
		if err := rows.Scan(&id, &ev); err != nil {
			t.Fatal(err)
		}
		out[id] = ev
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkPoint checks that the restored payments are a point of the load:
// every payment answered before the backup began, none sent after it
// ended, and nothing the load did not make.
func checkPoint(t *testing.T, log []loggedPayment, restored settled, began, ended time.Time) {
	t.Helper()
	made := map[string]bool{}
	var before, after, in int
	for _, p := range log {
		made[p.id] = true
		_, ok := restored[p.id]
		switch {
		case p.answered.Before(began) && !ok:
			t.Errorf("payment %s, answered before the backup began, is not restored", p.id)
		case p.sent.After(ended) && ok:
			t.Errorf("payment %s, sent after the backup ended, is restored", p.id)
		}
		if p.answered.Before(began) {
			before++
		}
		if p.sent.After(ended) {
			after++
		}
		if ok {
			in++
		}
	}
	for id := range restored {
		if !made[id] {
			t.Errorf("restored payment %s was not made by the load", id)
		}
	}
	t.Logf("%d payments restored: %d answered before the backup, %d while it ran, %d sent after it (not restored)", in, before, in-before, after)
}

// checkPrefix checks, on SQLite, that the restored payments are exactly
// the source's up to the archive's outbox head.
func checkPrefix(t *testing.T, source, restored settled, head int64) {
	t.Helper()
	for id, ev := range source {
		if _, ok := restored[id]; ok != (ev <= head) {
			t.Errorf("source payment %s, event %d, restored %v with the outbox head at %d", id, ev, ok, head)
		}
	}
}

// balancesOf is each wallet's balance after the payments of log that
// restored holds.
func balancesOf(log []loggedPayment, restored settled, wallets int, funds int64) []int64 {
	b := make([]int64, wallets)
	for i := range b {
		b[i] = funds
	}
	for _, p := range log {
		if _, ok := restored[p.id]; ok {
			b[p.from] -= p.msat
			b[p.to] += p.msat
		}
	}
	return b
}

// countBefore counts the payments answered before t.
func countBefore(log []loggedPayment, t time.Time) int {
	n := 0
	for _, p := range log {
		if p.answered.Before(t) {
			n++
		}
	}
	return n
}

// balance is a wallet's available balance.
func balance(t *testing.T, c *client, token, id string) int64 {
	t.Helper()
	var w struct {
		Balance struct {
			AvailableMsat int64 `json:"available_msat"`
		} `json:"balance"`
	}
	c.decode(c.expect(c.call("GET", "/v1/wallets/"+id, "", token), 200), &w)
	return w.Balance.AvailableMsat
}
