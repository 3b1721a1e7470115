package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Resuming the node's invoice stream. A node's stream of settled invoices
// starts from now, and reconciliation reads only the invoices the ledger
// knows: a keysend the node took while no Hearth followed it (stopped,
// upgrading, the stream broken) would never be credited. A node that can
// replay its stream from a position (an InvoiceResumer) is followed from
// where the ledger got to, kept per node in invoice_stream_positions; on
// the first run, from the node's position then, so that what the node
// took before Hearth knew it is not credited to anyone.

// InvoiceResumer is implemented by nodes whose invoice stream can start
// after a position it gave (InvoiceSettlement.Position), replaying what
// was settled since.
type InvoiceResumer interface {
	// InvoicePosition is the stream's position now.
	InvoicePosition(ctx context.Context) (uint64, error)
	// SubscribeInvoicesAfter is SubscribeInvoices from after position:
	// first what the node settled since, then as it settles.
	SubscribeInvoicesAfter(ctx context.Context, position uint64) (<-chan InvoiceSettlement, error)
}

// streamPosition is where the leader's reading of one node's invoice
// stream got to: every settlement up to seen was applied.
type streamPosition struct {
	node        string
	saved, seen uint64
	// broken is set once a settlement failed to apply: the position stays
	// before it, so that the next reading delivers it again.
	broken bool
}

// subscribeInvoices subscribes to the node's invoices: from the position
// saved for it when it is an InvoiceResumer (pos is then non-nil).
func (s *Service) subscribeInvoices(ctx context.Context) (<-chan InvoiceSettlement, *streamPosition, error) {
	r, ok := s.node.(InvoiceResumer)
	if !ok {
		ch, err := s.node.SubscribeInvoices(ctx)
		return ch, nil, err
	}
	info, err := s.node.Info(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("naming the node: %w", err)
	}
	pos := &streamPosition{node: info.Backend + ":" + info.Pubkey}
	err = s.db.R.NewSelect().Table("invoice_stream_positions").Column("position").
		Where("node = ?", pos.node).Scan(ctx, &pos.saved)
	if errors.Is(err, sql.ErrNoRows) {
		if pos.saved, err = r.InvoicePosition(ctx); err != nil {
			return nil, nil, fmt.Errorf("asking the node where its invoice stream is: %w", err)
		}
		_, err = s.db.W.NewRaw("INSERT INTO invoice_stream_positions (node, position, updated_at) VALUES (?, ?, ?) ON CONFLICT (node) DO NOTHING",
			pos.node, pos.saved, s.timestamp()).Exec(ctx)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading the invoice stream's position: %w", err)
	}
	pos.seen = pos.saved
	ch, err := r.SubscribeInvoicesAfter(ctx, pos.saved)
	return ch, pos, err
}

// applied notes that st was applied (err nil) or not; a keysend's position
// is saved at once, the others' with the next save.
func (s *Service) applied(ctx context.Context, pos *streamPosition, st InvoiceSettlement, err error) {
	if pos == nil || st.Position == 0 {
		return
	}
	if err != nil {
		pos.broken = true
		return
	}
	if !pos.broken && st.Position > pos.seen {
		pos.seen = st.Position
	}
	if st.Keysend {
		s.savePosition(ctx, pos)
	}
}

// savePosition stores how far the stream was applied; a position only
// moves forward, whichever replica saves it.
func (s *Service) savePosition(ctx context.Context, pos *streamPosition) {
	if pos == nil || pos.seen <= pos.saved {
		return
	}
	_, err := s.db.W.NewUpdate().Table("invoice_stream_positions").
		Set("position = ?", pos.seen).Set("updated_at = ?", s.timestamp()).
		Where("node = ?", pos.node).Where("position < ?", pos.seen).Exec(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "saving the invoice stream's position", "err", err)
		return
	}
	pos.saved = pos.seen
}
