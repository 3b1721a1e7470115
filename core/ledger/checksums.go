package ledger

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// sums are what a wallet's rows add up to: its settled invoices' amounts
// received, its settled payments' amounts and fees.
type sums struct{ Received, Sent, Fees int64 }

func (a sums) plus(b sums) sums {
	return sums{a.Received + b.Received, a.Sent + b.Sent, a.Fees + b.Fees}
}

func (a sums) minus(b sums) sums {
	return sums{a.Received - b.Received, a.Sent - b.Sent, a.Fees - b.Fees}
}

// readBooks reads every wallet's balances and the reserves of its pending
// payments (few, through payments_pending_idx), in q's snapshot.
func readBooks(ctx context.Context, q bun.IDB) ([]Breach, error) {
	var books []Breach
	err := q.NewRaw(`SELECT w.id, w.available_msat, w.reserved_msat, w.received_msat, w.sent_msat, w.fees_paid_msat,
  COALESCE(r.reserved, 0) AS pay_reserved
FROM wallets w
LEFT JOIN (SELECT wallet_id, SUM(reserved_msat) AS reserved FROM payments WHERE status = 'Pending' GROUP BY wallet_id) r
  ON r.wallet_id = w.id
ORDER BY w.id`).Scan(ctx, &books)
	if err != nil {
		return nil, fmt.Errorf("reading the wallets' balances: %w", err)
	}
	return books, nil
}

// walletSums is a wallet's sums, as a query answers them.
type walletSums struct {
	WalletID string `bun:"wallet_id"`
	Received int64  `bun:"received_msat"`
	Sent     int64  `bun:"sent_msat"`
	Fees     int64  `bun:"fees_paid_msat"`
}

// readAllSums sums every settled invoice and payment of each wallet: one
// pass over each table.
func readAllSums(ctx context.Context, q bun.IDB) (map[string]sums, error) {
	var rows []walletSums
	err := q.NewRaw(`SELECT wallet_id, SUM(received_msat) AS received_msat, SUM(sent_msat) AS sent_msat, SUM(fees_paid_msat) AS fees_paid_msat
FROM (
  SELECT wallet_id, SUM(COALESCE(amount_received_msat, 0)) AS received_msat, 0 AS sent_msat, 0 AS fees_paid_msat
    FROM invoices WHERE status = 'Settled' GROUP BY wallet_id
  UNION ALL
  SELECT wallet_id, 0, SUM(amount_msat), SUM(COALESCE(fee_msat, 0))
    FROM payments WHERE status = 'Settled' GROUP BY wallet_id
) t GROUP BY wallet_id`).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("summing invoices and payments: %w", err)
	}
	return byWallet(rows), nil
}

// tail is what settled after an event id: split at a second one.
type tail struct {
	upTo  map[string]sums // event ids in (after, through]
	above map[string]sums // event ids above through
}

// tailRow is a wallet's share of a tail, as tailQuery answers it.
type tailRow struct {
	WalletID      string `bun:"wallet_id"`
	UpToReceived  int64  `bun:"up_to_received_msat"`
	UpToSent      int64  `bun:"up_to_sent_msat"`
	UpToFees      int64  `bun:"up_to_fees_paid_msat"`
	AboveReceived int64  `bun:"above_received_msat"`
	AboveSent     int64  `bun:"above_sent_msat"`
	AboveFees     int64  `bun:"above_fees_paid_msat"`
}

// tailQuery sums, per wallet, the invoices and payments that settled with
// an event id above its first argument, split at its second: through the
// partial indexes of event ids (invoices_event_idx, payments_event_idx),
// so it reads the rows after the checkpoint and no other. An invoice that
// an internal payment settled on PostgreSQL has no event id of its own:
// its event is its payment's (migrations 20261126000001), and it is found
// through it by its payment hash.
const tailQuery = `SELECT t.wallet_id,
  SUM(CASE WHEN t.e <= ?1 THEN t.received ELSE 0 END) AS up_to_received_msat,
  SUM(CASE WHEN t.e <= ?1 THEN t.sent ELSE 0 END) AS up_to_sent_msat,
  SUM(CASE WHEN t.e <= ?1 THEN t.fees ELSE 0 END) AS up_to_fees_paid_msat,
  SUM(CASE WHEN t.e > ?1 THEN t.received ELSE 0 END) AS above_received_msat,
  SUM(CASE WHEN t.e > ?1 THEN t.sent ELSE 0 END) AS above_sent_msat,
  SUM(CASE WHEN t.e > ?1 THEN t.fees ELSE 0 END) AS above_fees_paid_msat
FROM (
  SELECT i.wallet_id, i.event_id AS e, COALESCE(i.amount_received_msat, 0) AS received, 0 AS sent, 0 AS fees
    FROM invoices i WHERE i.event_id > ?0 AND i.status = 'Settled'
  UNION ALL
  SELECT i.wallet_id, p.event_id, COALESCE(i.amount_received_msat, 0), 0, 0
    FROM payments p JOIN invoices i ON i.payment_hash = p.payment_hash
   WHERE p.event_id > ?0 AND p.status = 'Settled' AND p.ledger = 'Internal'
     AND i.event_id IS NULL AND i.status = 'Settled'
  UNION ALL
  SELECT p.wallet_id, p.event_id, 0, p.amount_msat, COALESCE(p.fee_msat, 0)
    FROM payments p WHERE p.event_id > ?0 AND p.status = 'Settled'
) t GROUP BY t.wallet_id`

// readTail reads what settled with an event id above after, split at
// through (at least after).
func readTail(ctx context.Context, q bun.IDB, after, through int64) (tail, error) {
	var rows []tailRow
	if err := q.NewRaw(tailQuery, after, through).Scan(ctx, &rows); err != nil {
		return tail{}, fmt.Errorf("summing what settled after event %d: %w", after, err)
	}
	t := tail{upTo: map[string]sums{}, above: map[string]sums{}}
	for _, r := range rows {
		t.upTo[r.WalletID] = sums{r.UpToReceived, r.UpToSent, r.UpToFees}
		t.above[r.WalletID] = sums{r.AboveReceived, r.AboveSent, r.AboveFees}
	}
	return t, nil
}

func byWallet(rows []walletSums) map[string]sums {
	m := make(map[string]sums, len(rows))
	for _, r := range rows {
		m[r.WalletID] = sums{r.Received, r.Sent, r.Fees}
	}
	return m
}
