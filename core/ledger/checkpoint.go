package ledger

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// The ledger check reads every invoice and payment of the instance, which
// takes longer as the books grow. Its checkpoint (tables ledger_checkpoint
// and ledger_checkpoint_wallets, migration 20261129000060) keeps, for each
// wallet, what its settled invoices and payments sum to through an event
// id, so that CheckIncremental reads only what settled after it.
//
// Why that is sound. What the sums count is Settled rows: an invoice's
// amount received, a payment's amount and fee. A row becomes Settled only
// through a conditional update that also gives it a new event id, in the
// statement that changes its status (store.EventToken): an invoice from
// Pending (invoice.go, onchain.go, internal.go, hearth_pay_own_batch, all
// `WHERE status = 'Pending'`) or, a hold invoice, from Accepted
// (holdend.go, `WHERE status = 'Accepted'`, or the node's settlement of
// it: `status IN ('Pending', 'Accepted')`), a payment from Pending or from Failed (a
// late success: SettlePayment's `WHERE status = <the status it read>`),
// or a payment inserted Settled (internal payments), with its id. An
// invoice an internal payment settles on PostgreSQL takes its payment's
// id instead (migration 20261126000001). Nothing changes a Settled row's
// status or amounts again: FailPayment and every settling update require
// Pending (or Failed), SettlePayment leaves a Settled payment alone, and
// the other updates of these tables touch confirmations, a budget or a
// success action. So Failed is not final (it may still settle, with a new
// id), nor is an Expired invoice (a Pending row past its expiry, which a
// node's late settlement may still settle); neither counts in the sums
// until it settles, and then it counts at its new id. The sums of the
// rows with event ids up to B never change once every transaction that
// took such an id has ended (store.ReadSettled waits for that), and a row
// that settles later has an id above B. Reserves are not checkpointed:
// the Pending payments are few, and read whole every time.
//
// So the incremental check adds the checkpoint (through B0) to the sums of
// the rows with ids above B0, read through the event ids' indexes, in one
// snapshot with every wallet's balances; and it moves the checkpoint to
// the snapshot's bound B1, adding the rows with ids in (B0, B1]. Balances
// are read whole, so a balance changed behind the ledger's back is found
// as by the full check.
//
// What it cannot see: a row already in the checkpoint that was changed by
// hand (an amount edited, a status set back, a row deleted or inserted
// with an old or no event id) — its share is frozen in the checkpoint, so
// the balances and the checkpoint still agree; and rows written without
// an event id (loadbench's rounds with the outbox off). CheckFull reads
// every row, finds those, and rebuilds the checkpoint from the rows; a
// checkpoint edited by hand shows as a breach of the incremental check
// that the full one does not confirm.
//
// A check moves the checkpoint only when every wallet's balances agree
// with its sums: a row found in breach stays after the checkpoint, read
// again by the next check, so that once it is put right the breach is
// gone (a balance that breaks no sum, a negative one after an on-chain
// overspend, does not hold the checkpoint back). A checkpoint is written
// after its snapshot, in a transaction of its own
// that changes it only when it is still the one the check began from (its
// generation): what it records holds of rows that no longer change, so it
// is as true when written as when read.

// CheckReport is what a check found and read.
type CheckReport struct {
	Breaches []Breach
	// Full says the check read every invoice and payment: CheckFull, or
	// CheckIncremental before any checkpoint.
	Full bool
	// Through is the event id the checkpoint holds after the check (0:
	// none), and Moved whether this check wrote it.
	Through int64
	Moved   bool
}

// checkpoint is the checkpoint as a snapshot holds it.
type checkpoint struct {
	exists     bool
	through    int64
	generation int64
	wallets    map[string]sums
}

// CheckIncremental checks every wallet as Check does, reading of the
// invoices and payments only those that settled after the checkpoint, and
// moves the checkpoint forward. Without a checkpoint it is CheckFull.
func (s *Service) CheckIncremental(ctx context.Context) (*CheckReport, error) {
	return s.checkBooks(ctx, false)
}

// CheckFull checks every wallet as Check does, reading every invoice and
// payment, and rebuilds the checkpoint from them.
func (s *Service) CheckFull(ctx context.Context) (*CheckReport, error) {
	return s.checkBooks(ctx, true)
}

func (s *Service) checkBooks(ctx context.Context, full bool) (*CheckReport, error) {
	var (
		rep  CheckReport
		cp   checkpoint
		next map[string]sums // the checkpoint to write, through rep.Through
	)
	err := s.db.ReadSettled(ctx, func(ctx context.Context, tx bun.Tx, bound int64) error {
		rep, next = CheckReport{}, nil
		var err error
		if cp, err = readCheckpoint(ctx, tx); err != nil {
			return err
		}
		books, err := readBooks(ctx, tx)
		if err != nil {
			return err
		}
		rep.Full = full || !cp.exists
		var totals map[string]sums
		if rep.Full {
			totals, next, rep.Through, err = sumAll(ctx, tx, cp, bound)
		} else {
			totals, next, rep.Through, err = sumSince(ctx, tx, cp, bound)
		}
		if err != nil {
			return err
		}
		for i := range books {
			b := &books[i]
			t := totals[b.WalletID]
			b.InvoicesReceived, b.PaymentsSent, b.PaymentsFees = t.Received, t.Sent, t.Fees
		}
		rep.Breaches = judge(books)
		if !sumsAgree(books) {
			next = nil // the checkpoint records only history that balanced
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checking ledger: %w", err)
	}
	if next != nil && (rep.Full || rep.Through > cp.through) {
		if rep.Moved, err = s.saveCheckpoint(ctx, cp, next, rep.Through, rep.Full); err != nil {
			return nil, err
		}
	}
	if !rep.Moved {
		rep.Through = cp.through
	}
	return &rep, nil
}

// sumAll sums every row, and the checkpoint at bound (or, without one, at
// the old checkpoint's): the sums less what settled after it.
func sumAll(ctx context.Context, tx bun.Tx, cp checkpoint, bound int64) (totals, next map[string]sums, through int64, err error) {
	if totals, err = readAllSums(ctx, tx); err != nil {
		return nil, nil, 0, err
	}
	through = bound
	if bound == store.NoBound {
		if !cp.exists {
			return totals, nil, 0, nil
		}
		through = cp.through
	}
	t, err := readTail(ctx, tx, through, through)
	if err != nil {
		return nil, nil, 0, err
	}
	next = make(map[string]sums, len(totals))
	for id, sum := range totals {
		next[id] = sum.minus(t.above[id])
	}
	return totals, next, through, nil
}

// sumSince adds to the checkpoint what settled after it, and moves it to
// bound when bound is past it.
func sumSince(ctx context.Context, tx bun.Tx, cp checkpoint, bound int64) (totals, next map[string]sums, through int64, err error) {
	through = max(cp.through, bound)
	t, err := readTail(ctx, tx, cp.through, through)
	if err != nil {
		return nil, nil, 0, err
	}
	totals = make(map[string]sums, len(cp.wallets)+len(t.upTo))
	next = make(map[string]sums, len(t.upTo))
	for id, sum := range cp.wallets {
		totals[id] = sum
	}
	for id, moved := range t.upTo {
		next[id] = cp.wallets[id].plus(moved) // only the wallets that changed
		totals[id] = next[id]
	}
	for id, above := range t.above {
		totals[id] = totals[id].plus(above)
	}
	return totals, next, through, nil
}

// sumsAgree reports whether every wallet's received, sent and fees equal
// the sums of its rows.
func sumsAgree(books []Breach) bool {
	for _, b := range books {
		if b.Received != b.InvoicesReceived || b.Sent != b.PaymentsSent || b.Fees != b.PaymentsFees {
			return false
		}
	}
	return true
}

// judge returns the wallets in breach, the reason of each set.
func judge(books []Breach) []Breach {
	var out []Breach
	for _, r := range books {
		switch {
		case r.Available+r.Reserved != r.Received-r.Sent-r.Fees:
			r.Reason = "available + reserved != received - sent - fees"
		case r.Available < 0 || r.Reserved < 0:
			r.Reason = "negative balance"
		case r.Received != r.InvoicesReceived:
			r.Reason = "received differs from settled invoices"
		case r.Sent != r.PaymentsSent || r.Fees != r.PaymentsFees:
			r.Reason = "sent or fees differ from settled payments"
		case r.Reserved != r.PaymentsReserved:
			r.Reason = "reserved differs from pending payments"
		default:
			continue
		}
		out = append(out, r)
	}
	return out
}
