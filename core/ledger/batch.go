package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// Payments inside the instance, on PostgreSQL, are paid in batches: the
// payments waiting when the batcher comes free go to the server in one call
// of hearth_pay_own_batch (migrations/20261122000007_pay_own_batch.go), one
// round trip and one commit for all of them, each still all or nothing on
// its own. It is SQLite's group commit (store/group.go) for the one
// statement that most requests run: the server's work per payment, most of
// it the statement's and the commit's overhead, is what limits payments on
// PostgreSQL.
//
// The function pays a batch of two or more whole first, in one
// subtransaction with a statement each for all its payers, payees and
// records (migrations/20261128000001_pay_own_set.go), and one payment at a
// time, each in a subtransaction of its own, only when one of them would
// be refused.
//
// Nothing changes for a caller: payOwn returns once its payment has
// committed or been refused, with its own answer. A batch is whatever is
// waiting when the previous one ends (never more than maxOwnBatch), so a
// lone payment waits for nobody. A ledger runs one batch at a time. The
// function takes a lock of every wallet of its batch up front in one
// global order (migrations/20261123000011_pay_own_batch_ordered.go), so
// that batches of other replicas on the same database wait for it rather
// than deadlock (a deadlock holds both for PostgreSQL's deadlock_timeout,
// a second); a ledger alone on its database skips them (alone.go).
const maxOwnBatch = 48

// ownCall is one payment waiting for, then given, its answer.
type ownCall struct {
	ctx      context.Context
	item     ownItem
	inv      *Invoice
	err      error
	answered chan struct{}
}

// ownItem is one payment's arguments to hearth_pay_own_batch, as the batch's
// JSON gives them.
type ownItem struct {
	Bolt11 string    `json:"bolt11"`
	Payer  string    `json:"payer"`
	Amount *int64    `json:"amount"`
	ID     string    `json:"id"`
	Now    time.Time `json:"now"`
	Key    *string   `json:"key"`
	Hash   string    `json:"hash"`
	// APIKey is the key that made the payment (payments.api_key_id).
	APIKey *string `json:"api_key,omitempty"`
}

// ownRow is one answer row of hearth_pay_own_batch.
type ownRow struct {
	Ord        int     `bun:"ord"`
	ErrCode    *string `bun:"err_code"`
	ErrMessage *string `bun:"err_message"`
	Invoice    `bun:",extend"`
}

// payOwnBatchQuery expands each answer's invoice into its columns; a
// refused or unknown payment's are all NULL.
// Its second parameter says whether to lock the batch's wallets up front
// (alone.go), its third whether to try the batch whole first.
var payOwnBatchQuery = store.NewHot(`SELECT b.ord, b.err_code, b.err_message, (b.inv).*
	FROM hearth_pay_own_batch(?::jsonb, ?, ?) AS b`)

// partBatches is how many batches after one with a refusal are paid one
// payment at a time without trying them whole: a batch with a refusal
// pays for its whole pass and then for each payment, so a client whose
// payments are refused again and again (too little money, say) costs the
// batches beside it that extra pass once in every partBatches+1 at most.
const partBatches = 8

// ownBatcher runs the batches of one ledger. It has no goroutine of its
// own: the payment that finds no batch running runs the first, and
// whatever queued meanwhile goes on in a goroutine started for it.
type ownBatcher struct {
	db *store.DB

	mu      sync.Mutex
	queue   []*ownCall
	running bool
	batches atomic.Int64 // batches sent, for tests
	// deadlocks counts the batches, and the payments in them, that
	// PostgreSQL undid to break a deadlock, for tests.
	deadlocks atomic.Int64
	// alone is set while the ledger knows itself alone on its database
	// (alone.go): its batches then take no up-front locks.
	alone atomic.Bool
	// excl is held by a batch that took no up-front locks while its
	// statement runs, and by payInternal's transactions, so that neither
	// waits in the database for what the other holds.
	excl sync.Mutex
	// unlocked counts the batches sent without up-front locks, for tests.
	unlocked atomic.Int64
	// parts is how many batches are still to be paid one payment at a
	// time, after one with a refusal (partBatches).
	parts atomic.Int32
	// wholeTries counts the batches sent to be tried whole, for tests.
	wholeTries atomic.Int64
	// presence is the ledger's mark among the replicas, once it joined.
	presence *store.Presence
}

// pay pays item in the next batch: the settled invoice, errNotOwn when no
// Pending invoice of another wallet has that text, or the database's error
// for this payment alone. A payment whose ctx ends before its batch begins
// is answered ctx's error, having written nothing; once begun, it is
// answered whatever ctx says, since it may commit.
func (b *ownBatcher) pay(ctx context.Context, item ownItem) (*Invoice, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &ownCall{ctx: ctx, item: item, answered: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	lead := !b.running
	b.running = true
	b.mu.Unlock()
	if lead {
		b.next()
	}
	<-c.answered
	return c.inv, c.err
}

// next runs the next batch of the queue, and leaves the rest to a goroutine
// of its own, so that the payment that ran it is answered now.
func (b *ownBatcher) next() {
	b.mu.Lock()
	n := min(len(b.queue), maxOwnBatch)
	batch := slices.Clone(b.queue[:n])
	b.queue = b.queue[n:]
	if len(b.queue) == 0 {
		b.queue = nil // lets the backing array go
	}
	b.mu.Unlock()

	live := batch[:0:0]
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			continue
		}
		live = append(live, c)
	}
	if len(live) > 0 {
		b.runBatch(live)
		b.batches.Add(1)
	}

	b.mu.Lock()
	more := len(b.queue) > 0
	b.running = more
	b.mu.Unlock()
	for _, c := range batch {
		close(c.answered)
	}
	if more {
		go b.next()
	}
}

// batchTimeout bounds one batch's statement: its callers' contexts cannot,
// since the batch serves them all.
const batchTimeout = 30 * time.Second

// runBatch pays batch in one statement and sets each call's answer.
func (b *ownBatcher) runBatch(batch []*ownCall) {
	items := make([]ownItem, len(batch))
	for i, c := range batch {
		items[i] = c.item
	}
	arg, err := json.Marshal(items)
	if err != nil {
		setAll(batch, fmt.Errorf("encoding a batch of payments: %w", err))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	var rows []ownRow
	lock := !b.alone.Load()
	whole := len(batch) > 1 && b.parts.Load() == 0
	if whole {
		b.wholeTries.Add(1)
	} else if len(batch) > 1 {
		b.parts.Add(-1)
	}
	if !lock {
		b.excl.Lock()
		b.unlocked.Add(1)
	}
	err = b.db.Statement(ctx, func(ctx context.Context, w *bun.DB) error {
		rows = rows[:0]
		err := b.db.QueryAll(ctx, w, payOwnBatchQuery, &rows, string(arg), lock, whole)
		if code, _ := store.Raised(err); code == deadlockDetected {
			b.deadlocks.Add(1)
		}
		return err
	})
	if !lock {
		b.excl.Unlock()
	}
	if err != nil {
		if len(batch) > 1 && refusedWhole(err) {
			b.runAlone(batch)
			return
		}
		setAll(batch, fmt.Errorf("paying a batch of invoices of the instance: %w", err))
		return
	}
	setAll(batch, errNoAnswer)
	for _, r := range rows {
		if r.Ord < 0 || r.Ord >= len(batch) {
			continue // cannot be: the function answers each position once
		}
		c := batch[r.Ord]
		c.err = nil
		switch {
		case r.ErrCode != nil:
			if *r.ErrCode == deadlockDetected {
				b.deadlocks.Add(1)
			}
			if whole {
				b.parts.Store(partBatches)
			}
			msg := ""
			if r.ErrMessage != nil {
				msg = *r.ErrMessage
			}
			c.err = &pgconn.PgError{Code: *r.ErrCode, Message: msg}
		case r.Invoice.ID == "":
			c.err = errNotOwn
		default:
			inv := r.Invoice
			c.inv = &inv
		}
	}
}

// refusedWhole reports whether the batch's statement failed as a whole at
// the server, which then committed none of it: PostgreSQL answered an
// error (a text that jsonb cannot hold, say, or a deadlock between its
// up-front locks and a writer outside the batch, past store.Statement's
// retries). Any other failure (the connection lost, the deadline) may have
// come after the commit: whether each payment was paid is unknown.
func refusedWhole(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr)
}

// runAlone pays each call of a batch that failed as a whole in a batch of
// its own, so that what failed it fails only the payment it came from: one
// payment's failure of any kind is never the others'. Nothing of the batch
// was written, so each is free to run again; one whose context ended
// meanwhile is answered that, having written nothing.
func (b *ownBatcher) runAlone(batch []*ownCall) {
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			continue
		}
		b.runBatch([]*ownCall{c})
	}
}

// deadlockDetected is PostgreSQL's SQLSTATE for a transaction (or a
// subtransaction) undone to break a deadlock.
const deadlockDetected = "40P01"

// errNoAnswer is a payment's answer that its batch did not give, which
// cannot be: the statement committed, so whether it was paid is unknown
// until its payment is looked up.
var errNoAnswer = errors.New("the batch gave no answer for this payment")

// setAll gives every call of batch the answer err.
func setAll(batch []*ownCall, err error) {
	for _, c := range batch {
		c.err = err
	}
}
