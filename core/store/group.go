package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
)

// Group commit, on SQLite. Every write there goes through one connection,
// so transactions queue in Go anyway; Tx hands them to one goroutine that
// runs the ones queued at that moment in a single BEGIN IMMEDIATE … COMMIT,
// each inside its own SAVEPOINT: one that fails or panics is rolled back
// alone, the others commit together. The commit then appends the pages the
// transactions share (the wallets, the last page of each table and index)
// to the WAL once for the group instead of once each, and the single
// writer spends its time on the work instead of on commits.
//
// Nothing changes for a caller: Tx returns only once its transaction has
// committed or been rolled back, with its own error, so nothing is
// acknowledged before it is as durable as a transaction of its own. A group
// is whatever is waiting when the writer comes free (never more than
// maxGroup), so a lone transaction waits for nobody.
//
// A transaction that has begun runs to its end without its context's
// cancellation: SQLite answers an interrupted write inside an explicit
// transaction by rolling the whole transaction back, which would undo the
// rest of the group. A context cancelled before its turn ends the call
// with the context's error, having written nothing.
const maxGroup = 64

// groupCommitter runs Tx on a SQLite writer.
type groupCommitter struct {
	w      *bun.DB
	calls  chan *txCall // unbuffered: a call is handed over when taken
	closed chan struct{}
	done   sync.WaitGroup
	groups atomic.Int64 // groups committed or rolled back
}

// txCall is one transaction waiting for, then given, its answer.
type txCall struct {
	ctx      context.Context
	fn       func(ctx context.Context, tx bun.Tx) error
	err      error
	panicked any // what fn panicked with, raised again in the caller
	answered chan struct{}
}

// errClosed answers a transaction asked for after Close.
var errClosed = errors.New("database closed")

func startGroupCommitter(w *bun.DB) *groupCommitter {
	g := &groupCommitter{w: w, calls: make(chan *txCall), closed: make(chan struct{})}
	g.done.Add(1)
	go g.run()
	return g
}

// tx runs fn in a transaction of the next group and returns its answer.
func (g *groupCommitter) tx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c := &txCall{ctx: ctx, fn: fn, answered: make(chan struct{})}
	select {
	case g.calls <- c:
	case <-ctx.Done():
		return ctx.Err()
	case <-g.closed:
		return errClosed
	}
	// Handed over: the answer comes whatever ctx says now, since the
	// transaction may commit.
	<-c.answered
	if c.panicked != nil {
		panic(c.panicked)
	}
	return c.err
}

// close stops taking transactions once the group in progress is answered.
func (g *groupCommitter) close() {
	close(g.closed)
	g.done.Wait()
}

func (g *groupCommitter) run() {
	defer g.done.Done()
	group := make([]*txCall, 0, maxGroup)
	for {
		select {
		case c := <-g.calls:
			group = append(group[:0], c)
		case <-g.closed:
			return
		}
	gather:
		for len(group) < maxGroup {
			select {
			case c := <-g.calls:
				group = append(group, c)
			default:
				break gather
			}
		}
		g.commit(group)
		g.groups.Add(1)
		for _, c := range group {
			close(c.answered)
		}
		clear(group)
	}
}

// The statements around each transaction of a group, kept prepared.
var (
	savepointSQL  = preparedPlain("SAVEPOINT hearth_tx")
	rollbackToSQL = preparedPlain("ROLLBACK TO hearth_tx")
	releaseSQL    = preparedPlain("RELEASE hearth_tx")
)

// commit runs group in one transaction and sets each call's answer.
func (g *groupCommitter) commit(group []*txCall) {
	ctx := context.Background()
	tx, err := g.w.BeginTx(ctx, nil)
	if err != nil {
		failRest(group, fmt.Errorf("beginning transaction: %w", err))
		return
	}
	for _, c := range group {
		if c.err = c.ctx.Err(); c.err != nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, savepointSQL); err != nil {
			g.abort(tx, group, err)
			return
		}
		c.panicked, c.err = call(c, tx)
		if c.err != nil || c.panicked != nil {
			// The savepoint is gone if SQLite itself rolled the whole
			// transaction back (a full disk, an I/O error): the group is
			// lost then, and said so.
			if _, err := tx.ExecContext(ctx, rollbackToSQL); err != nil {
				g.abort(tx, group, err)
				return
			}
		}
		if _, err := tx.ExecContext(ctx, releaseSQL); err != nil {
			g.abort(tx, group, err)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		failRest(group, fmt.Errorf("committing: %w", err))
	}
}

// abort rolls the group's transaction back after a failure of the group
// itself: each call that had not failed on its own gets err, since nothing
// of the group is written.
func (g *groupCommitter) abort(tx bun.Tx, group []*txCall, err error) {
	_ = tx.Rollback() // the transaction may already be gone
	failRest(group, fmt.Errorf("group transaction: %w", err))
}

// failRest gives err to each call of group that has not failed on its own
// (or not run): nothing of the group was written.
func failRest(group []*txCall, err error) {
	for _, c := range group {
		if c.err == nil && c.panicked == nil {
			c.err = err
		}
	}
}

// call runs c's function in tx, catching a panic to raise in c's caller.
func call(c *txCall, tx bun.Tx) (panicked any, err error) {
	defer func() {
		if v := recover(); v != nil {
			panicked = v
		}
	}()
	return nil, c.fn(context.WithoutCancel(c.ctx), tx)
}
