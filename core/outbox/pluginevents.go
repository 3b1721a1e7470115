package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
)

// PluginEvent is an event a plugin added to the outbox (migration
// 20261205000001_plugin_events): it took the next event id in the
// transaction of the change it reports, as the ledger's events do.
type PluginEvent struct {
	bun.BaseModel `bun:"table:plugin_events"`

	EventID   int64     `bun:"event_id,pk"`
	Plugin    string    `bun:"plugin,notnull"`
	Type      string    `bun:"type,notnull"`
	WalletID  string    `bun:"wallet_id,notnull"`
	SubjectID string    `bun:"subject_id,notnull"`
	Data      string    `bun:"data,notnull"` // a JSON object
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// LedgerTypes are the types of the ledger's own events; every other type
// is a plugin's. Read only.
var LedgerTypes = map[string]bool{
	event.InvoiceSettled: true, event.PaymentSettled: true, event.PaymentFailed: true, event.OnchainDeposit: true,
	event.InvoiceAccepted: true, event.InvoiceCancelled: true,
}

// IsLedgerType reports whether typ is the type of one of the ledger's own
// events (invoice.settled, invoice.accepted, invoice.cancelled,
// payment.settled, payment.failed, onchain.deposit), which no plugin may
// add.
func IsLedgerType(typ string) bool { return LedgerTypes[typ] }

// pluginTypes says which of the plugins' events f reads: all of them, or
// those of the types listed.
func (f Filter) pluginTypes() (all bool, types []string) {
	if f.Types == nil {
		return true, nil
	}
	for _, t := range f.Types {
		if !LedgerTypes[t] {
			types = append(types, t)
		}
	}
	return false, types
}

// readPluginEvents reads the plugins' events of f with ids in (after,
// head], limit at most, or none when f wants none of them.
func (o *Outbox) readPluginEvents(ctx context.Context, after, head int64, f Filter, limit int) ([]Event, bool, error) {
	all, types := f.pluginTypes()
	if !all && len(types) == 0 {
		return nil, false, nil
	}
	var rows []PluginEvent
	q := o.db.R.NewSelect().Model(&rows)
	if !all {
		q = q.Where("type IN (?)", bun.List(types))
	}
	if err := o.page(q, after, head, f.WalletID, limit).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("reading the events of plugins: %w", err)
	}
	o.counted(len(rows))
	return eventsOf(rows, pluginEvent), true, nil
}

// pluginEvent is the event of row: its data as the plugin gave it.
func pluginEvent(row *PluginEvent) Event {
	return Event{ID: row.EventID, Type: row.Type, CreatedAt: row.CreatedAt.UTC(), WalletID: row.WalletID,
		SubjectID: row.SubjectID, Data: json.RawMessage(row.Data)}
}
