package ledger_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
)

// countingNode counts the subscriptions to its invoice stream.
type countingNode struct {
	*scriptedNode
	subs atomic.Int32
}

func (n *countingNode) SubscribeInvoices(ctx context.Context) (<-chan ledger.InvoiceSettlement, error) {
	n.subs.Add(1)
	return n.scriptedNode.SubscribeInvoices(ctx)
}

// Two replicas on one PostgreSQL database: only one follows the node;
// when it stops, the other takes over.
func TestOneReplicaFollowsTheNode(t *testing.T) {
	t.Parallel()
	a := storetest.Postgres(t)
	b := storetest.Replica(t, a)
	cfg := ledger.Config{LeaderPoll: 50 * time.Millisecond}
	nodeA := &countingNode{scriptedNode: newScriptedNode()}
	nodeB := &countingNode{scriptedNode: newScriptedNode()}
	ctxA, stopA := context.WithCancel(context.Background())
	doneA := make(chan struct{})
	go func() { defer close(doneA); ledger.New(a, nodeA, nil, cfg, nil).Run(ctxA) }()
	poll.Until(t, 10*time.Second, func() error {
		if nodeA.subs.Load() != 1 {
			return fmt.Errorf("replica A subscribed %d times", nodeA.subs.Load())
		}
		return nil
	})
	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	doneB := make(chan struct{})
	go func() { defer close(doneB); ledger.New(b, nodeB, nil, cfg, nil).Run(ctxB) }()
	defer func() { stopB(); <-doneB }()
	// B polls for the lock many times meanwhile, and never gets it.
	time.Sleep(300 * time.Millisecond) // letting B try, not synchronising
	if n := nodeB.subs.Load(); n != 0 {
		t.Fatalf("replica B subscribed %d times while A leads", n)
	}
	stopA()
	<-doneA
	poll.Until(t, 10*time.Second, func() error {
		if nodeB.subs.Load() != 1 {
			return fmt.Errorf("replica B subscribed %d times", nodeB.subs.Load())
		}
		return nil
	})
}

func TestSQLiteAlwaysFollowsTheNode(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		node := &countingNode{scriptedNode: newScriptedNode()}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); ledger.New(db, node, nil, ledger.Config{}, nil).Run(ctx) }()
		defer func() { cancel(); <-done }()
		poll.Until(t, 10*time.Second, func() error {
			if node.subs.Load() != 1 {
				return fmt.Errorf("subscribed %d times", node.subs.Load())
			}
			return nil
		})
	})
}
