package nwc_test

import (
	"context"
	"database/sql"
	"os"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	gonostr "github.com/nbd-wtf/go-nostr"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// seededConn is a connection row as the plugin stores it, written in bulk.
type seededConn struct {
	bun.BaseModel `bun:"table:nwc_connections"`
	ID            string    `bun:"id,pk"`
	WalletID      string    `bun:"wallet_id"`
	UserID        string    `bun:"user_id"`
	Name          string    `bun:"name"`
	Pubkey        string    `bun:"pubkey"`
	WalletPubkey  string    `bun:"wallet_pubkey"`
	Relays        string    `bun:"relays"`
	Methods       string    `bun:"methods"`
	CreatedAt     time.Time `bun:"created_at"`
}

// TestScaleOfConnections measures the service with HEARTH_NWC_SCALE
// connections of their own keys (10000 for docs/performance.md): the
// heap the lead holds, the time from its start to listening on every key
// and to every info event on the relay, one creation's time (its
// subscription renewed and its info event out before the answer), and the
// time from a request to its answer. Skipped without HEARTH_NWC_SCALE.
func TestScaleOfConnections(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HEARTH_NWC_SCALE"))
	if n <= 0 {
		t.Skip("HEARTH_NWC_SCALE (a number of connections) unset: the scale measurement is skipped")
	}
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, aliceW := k.user("alice", 1_000_000, auth.AllScopes)
		_, baseline := k.pairWithPubkey(alice, map[string]any{"name": "baseline"})
		before := answerTimes(t, baseline, 30)

		seed(t, k, aliceW.ID, n)
		infoEvents := func(want int) func() bool {
			return func() bool { return len(k.relay.Stored(gonostr.Filter{Kinds: []int{13194}})) >= want }
		}
		waitFor := func(what string, cond func() bool) {
			deadline := time.Now().Add(5 * time.Minute) // generous: the machine is shared
			for !cond() {
				if time.Now().After(deadline) {
					t.Fatalf("timed out waiting for %s: %d info events", what, len(k.relay.Stored(gonostr.Filter{Kinds: []int{13194}})))
				}
				time.Sleep(20 * time.Millisecond) // polling the relay's store, not synchronising
			}
		}
		seeded := time.Now()
		waitFor("the running lead following the seeded connections", infoEvents(n+2))
		followed := time.Since(seeded)

		created := time.Now()
		_, a := k.pairWithPubkey(alice, map[string]any{"name": "one more"})
		creation := time.Since(created)
		after := answerTimes(t, a, 30)

		heap0 := heapNow()
		k.relay.Forget() // the restarted lead announces every info event again, counted here
		start := time.Now()
		k.restart() // returns once the lead listens on the relay
		listening := time.Since(start)
		waitFor("every info event announced again", infoEvents(n+3))
		announced := time.Since(start)
		heap1 := heapNow()
		restartedTimes := answerTimes(t, a, 30)
		t.Logf("%s, %d connections: %d made elsewhere followed (subscriptions renewed, info events out) in %v; "+
			"one creation %v; request to answer p50/p95 %v/%v (with one connection: %v/%v; after a restart: %v/%v); "+
			"lead start to listening %v; lead start to every info event on the relay %v; heap of the new lead %.1f MiB",
			t.Name(), n, n, followed.Round(time.Millisecond), creation.Round(time.Millisecond),
			after[len(after)/2], after[len(after)*95/100], before[len(before)/2], before[len(before)*95/100],
			restartedTimes[len(restartedTimes)/2], restartedTimes[len(restartedTimes)*95/100],
			listening.Round(time.Millisecond), announced.Round(time.Millisecond),
			float64(int64(heap1)-int64(heap0))/(1<<20))
	})
}

// seed writes n connections of their own keys to walletID's user, in
// batches, as the plugin would have made them.
func seed(t *testing.T, k *kit, walletID string, n int) {
	t.Helper()
	service := k.p.ServiceSecret()
	rows := make([]seededConn, 0, 1000)
	at := time.Now().UTC().Add(-time.Hour)
	flush := func() {
		if len(rows) == 0 {
			return
		}
		_, err := k.e.DB.Write(context.Background(), func(ctx context.Context, w bun.IDB) (sql.Result, error) {
			return w.NewInsert().Model(&rows).Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		rows = rows[:0]
	}
	for i := 0; i < n; i++ {
		id := uuid.NewString()
		secret, err := nwc.WalletSecret(service, id)
		if err != nil {
			t.Fatal(err)
		}
		wpub, _ := gonostr.GetPublicKey(secret)
		apub, _ := gonostr.GetPublicKey(gonostr.GeneratePrivateKey())
		rows = append(rows, seededConn{ID: id, WalletID: walletID, UserID: "alice", Name: "seeded", Pubkey: apub,
			WalletPubkey: wpub, Methods: "get_balance get_info notifications", CreatedAt: at.Add(time.Duration(i) * time.Millisecond)})
		if len(rows) == cap(rows) {
			flush()
		}
	}
	flush()
}

// answerTimes are n get_balance round trips of a, sorted.
func answerTimes(t *testing.T, a *nostrtest.App, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		if r := a.Call("get_balance", nil); r.Code() != "" {
			t.Fatalf("get_balance: %+v", r)
		}
		out = append(out, time.Since(start))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func heapNow() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
