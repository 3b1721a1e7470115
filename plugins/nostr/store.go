package nostr

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

type zapRow struct {
	bun.BaseModel `bun:"table:nostr_zaps,alias:z"`
	InvoiceID     string     `bun:"invoice_id,pk"`
	WalletID      string     `bun:"wallet_id"`
	LnAddressID   string     `bun:"ln_address_id"`
	Request       string     `bun:"request"`
	Sender        string     `bun:"sender"`
	Anonymous     bool       `bun:"anonymous"`
	EventID       *string    `bun:"event_id"`
	AmountMsat    int64      `bun:"amount_msat"`
	Receipt       *string    `bun:"receipt"`
	ReceiptID     *string    `bun:"receipt_id"`
	PaidAt        *time.Time `bun:"paid_at"`
	CreatedAt     time.Time  `bun:"created_at"`
}

// The states of a receipt on a relay.
const (
	pending   = "pending"
	published = "published"
	givenUp   = "failed"
)

// relayRow is a receipt's publication on one relay: the send that makes
// it, and once that is done, its outcome (the send is pruned a week on).
type relayRow struct {
	bun.BaseModel `bun:"table:nostr_zap_relays,alias:r"`
	InvoiceID     string     `bun:"invoice_id,pk"`
	Relay         string     `bun:"relay,pk"`
	SendID        *string    `bun:"send_id"`
	State         string     `bun:"state"`
	Attempts      int        `bun:"attempts"`
	NextAt        time.Time  `bun:"next_at"`
	LastError     *string    `bun:"last_error"`
	PublishedAt   *time.Time `bun:"published_at"`
	CreatedAt     time.Time  `bun:"created_at"`
}

func (p *Plugin) insertZap(ctx context.Context, z *zapRow) error {
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(z).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("storing a zap request: %w", err)
	}
	return nil
}

// unanswered returns the zaps of invoices ids that have no receipt yet.
func (p *Plugin) unanswered(ctx context.Context, ids []string) ([]zapRow, error) {
	var zs []zapRow
	if len(ids) == 0 {
		return nil, nil
	}
	err := p.db.W.NewSelect().Model(&zs).Where("invoice_id IN (?)", bun.In(ids)).Where("receipt IS NULL").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading zaps: %w", err)
	}
	return zs, nil
}

// answer stores z's receipt and queues it on relays, once: a receipt
// already stored (an event read again after a restart) queues nothing.
func (p *Plugin) answer(ctx context.Context, z *zapRow, receipt, id string, paid time.Time, relays []string) error {
	return p.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*zapRow)(nil)).Set("receipt = ?", receipt).Set("receipt_id = ?", id).
			Set("paid_at = ?", paid).Where("invoice_id = ?", z.InvoiceID).Where("receipt IS NULL").Exec(ctx)
		if err != nil {
			return fmt.Errorf("storing a zap receipt: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 || len(relays) == 0 {
			return nil
		}
		now := time.Now().UTC()
		rows := make([]relayRow, len(relays))
		for i, r := range relays {
			st, err := p.host.Queue(ctx, tx, host.Send{Via: via, Kind: "zap-receipt", URL: r, Body: []byte(receipt),
				GiveUpAfter: p.cfg.RetryWindow})
			if err != nil {
				return fmt.Errorf("queueing a zap receipt: %w", err)
			}
			rows[i] = relayRow{InvoiceID: z.InvoiceID, Relay: r, SendID: &st.ID, State: pending, NextAt: now, CreatedAt: now}
		}
		if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (invoice_id, relay) DO NOTHING").Exec(ctx); err != nil {
			return fmt.Errorf("queueing a zap receipt: %w", err)
		}
		return nil
	})
}

// settled keeps the outcome of the done send st in its relay's row.
func (p *Plugin) settled(ctx context.Context, st *host.SendStatus) error {
	r := relayRow{State: givenUp, Attempts: st.Attempts, LastError: st.LastError}
	if st.State == host.SendDelivered {
		r.State, r.PublishedAt = published, st.DoneAt
	}
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model(&r).Column("state", "attempts", "last_error", "published_at").
			Where("send_id = ?", st.ID).Where("state = ?", pending).Exec(ctx)
	})
	return err
}

// prune deletes the zap requests whose invoice was never paid.
func (p *Plugin) prune(ctx context.Context, before time.Time) error {
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewDelete().Model((*zapRow)(nil)).Where("receipt IS NULL").Where("created_at < ?", before).Exec(ctx)
	})
	return err
}

// ErrZapNotFound is an unknown zap, or another wallet's.
var ErrZapNotFound = fault.New(fault.NotFound, "zap_not_found", "Zap not found")

// zaps lists walletID's zaps (one invoice when invoiceID is set), newest
// first, with their relays.
func (p *Plugin) zaps(ctx context.Context, walletID, invoiceID string, page store.Page) ([]Zap, error) {
	var zs []zapRow
	q := p.db.R.NewSelect().Model(&zs).Where("wallet_id = ?", walletID)
	if invoiceID != "" {
		q = q.Where("invoice_id = ?", invoiceID)
	}
	if err := page.ApplyKey(q, "invoice_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading zaps: %w", err)
	}
	out := make([]Zap, len(zs))
	ids := make([]string, len(zs))
	at := map[string]int{}
	for i := range zs {
		out[i] = zs[i].api()
		ids[i] = zs[i].InvoiceID
		at[zs[i].InvoiceID] = i
	}
	if len(ids) == 0 {
		return out, nil
	}
	var rs []relayRow
	if err := p.db.R.NewSelect().Model(&rs).Where("invoice_id IN (?)", bun.In(ids)).OrderExpr("created_at, relay").Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading zap relays: %w", err)
	}
	var live []string
	for _, r := range rs {
		if r.State == pending && r.SendID != nil {
			live = append(live, *r.SendID)
		}
	}
	sends, err := p.host.SendStatuses(ctx, live)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		z := &out[at[r.InvoiceID]]
		z.Relays = append(z.Relays, r.api(sends))
	}
	return out, nil
}
