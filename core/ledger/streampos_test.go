package ledger_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
)

// resumingNode is a node whose invoice stream replays its history after a
// position (ledger.InvoiceResumer): the history's settlements are at
// positions 1, 2, …
type resumingNode struct {
	*scriptedNode
	mu      sync.Mutex
	history []ledger.InvoiceSettlement
	live    chan ledger.InvoiceSettlement
	after   []uint64 // the positions subscribed after
}

func (n *resumingNode) settle(st ledger.InvoiceSettlement) {
	n.mu.Lock()
	st.Position = uint64(len(n.history) + 1)
	n.history = append(n.history, st)
	live := n.live
	n.mu.Unlock()
	if live != nil {
		live <- st
	}
}

func (n *resumingNode) InvoicePosition(context.Context) (uint64, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return uint64(len(n.history)), nil
}

func (n *resumingNode) SubscribeInvoicesAfter(ctx context.Context, position uint64) (<-chan ledger.InvoiceSettlement, error) {
	n.mu.Lock()
	backlog := append([]ledger.InvoiceSettlement(nil), n.history[min(position, uint64(len(n.history))):]...)
	n.after = append(n.after, position)
	live := make(chan ledger.InvoiceSettlement, 16) // a stream that ended takes, and drops, what comes
	n.live = live
	n.mu.Unlock()
	ch := make(chan ledger.InvoiceSettlement)
	go func() {
		defer close(ch)
		for _, st := range append(backlog, ledger.InvoiceSettlement{}) {
			if st.PaymentHash == "" { // the backlog's end: now live
				break
			}
			select {
			case ch <- st:
			case <-ctx.Done():
				return
			}
		}
		for {
			select {
			case st := <-live:
				select {
				case ch <- st:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

// The leader follows a resuming node from where it got to: a keysend the
// node took before the database's first start is not credited (the
// first position is the node's then); one taken while the ledger is
// stopped is credited when it starts again; the saved position only
// moves forward. On SQLite and PostgreSQL.
func TestTheInvoiceStreamResumesWhereItGotTo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1_000)
		before := available(t, db, f.wallet)
		node := &resumingNode{scriptedNode: f.node}
		led := ledger.New(db, node, nil, ledger.Config{ReconcileEvery: time.Hour}, nil)
		id, err := led.KeysendID(ctx, f.wallet)
		if err != nil {
			t.Fatal(err)
		}
		named := map[uint64][]byte{ledger.KeysendIDRecord: []byte(id)}
		node.settle(keysendTo(t, 1_000, named)) // before Hearth followed the node
		run := func() (stop func()) {
			ctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); led.Run(ctx) }()
			return func() { cancel(); <-done }
		}
		credited := func(want int64) {
			t.Helper()
			poll.Until(t, 10*time.Second, func() error {
				if got := available(t, db, f.wallet) - before; got != want {
					return fmt.Errorf("credited %d msat, want %d", got, want)
				}
				return nil
			})
		}
		position := func() (pos uint64) {
			t.Helper()
			if err := db.R.NewSelect().Table("invoice_stream_positions").Column("position").Scan(ctx, &pos); err != nil {
				t.Fatal(err)
			}
			return pos
		}
		subscribed := func(n int) {
			t.Helper()
			poll.Until(t, 10*time.Second, func() error {
				node.mu.Lock()
				defer node.mu.Unlock()
				if len(node.after) != n {
					return fmt.Errorf("subscribed %d times, want %d", len(node.after), n)
				}
				return nil
			})
		}

		stop := run()
		subscribed(1)
		node.settle(keysendTo(t, 2_000, named))
		credited(2_000)
		poll.Until(t, 10*time.Second, func() error {
			if p := position(); p != 2 {
				return fmt.Errorf("position %d, want 2", p)
			}
			return nil
		})
		stop()

		node.settle(keysendTo(t, 4_000, named)) // while no one follows
		stop = run()
		defer stop()
		subscribed(2)
		credited(6_000)
		node.mu.Lock()
		after := append([]uint64(nil), node.after...)
		node.mu.Unlock()
		if after[0] != 1 || after[1] != 2 {
			t.Fatalf("subscribed after %v, want [1 2]", after)
		}
		if _, err := db.W.NewUpdate().Table("invoice_stream_positions").Set("position = 1").Where("position > 1").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		node.settle(keysendTo(t, 8_000, named))
		credited(14_000)
		poll.Until(t, 10*time.Second, func() error {
			if p := position(); p != 4 {
				return fmt.Errorf("position %d, want 4", p)
			}
			return nil
		})
	})
}
