package host

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/outbox"
)

// NewEvent is an event a plugin adds to the outbox: webhooks, the event
// stream and the plugins subscribed to its type get it as they get the
// ledger's, in one order with them.
type NewEvent struct {
	// Type is one of the types the manifest's "emits" lists.
	Type string
	// WalletID is the wallet the event is of: whose stream and webhooks
	// get it. A WebAssembly plugin names its bound wallet, or any with
	// events:all.
	WalletID string
	// SubjectID is what the event is about: the id of the plugin's record.
	SubjectID string
	// Data is the event's data, encoded as a JSON object.
	Data any
}

// maxEventData is the largest event data, encoded.
const maxEventData = 16 << 10

// Emitter adds an event to the outbox in the transaction of a Caller.Tx.
type Emitter func(ctx context.Context, e NewEvent) error

// eventTypeRE is the form of a plugin's event type: its name, a dot, and
// a word (withdraw.claimed).
var eventTypeRE = regexp.MustCompile(`^[a-z][a-z0-9-]{1,31}\.[a-z][a-z0-9_]{0,31}$`)

// validEventType reports why typ cannot be plugin name's event type, or "".
func validEventType(name, typ string) string {
	switch {
	case !eventTypeRE.MatchString(typ):
		return "an event type is the plugin's name, a dot and a word: a-z, 0-9, '_'"
	case !strings.HasPrefix(typ, name+"."):
		return "an event type starts with the plugin's name and a dot (" + name + ".)"
	case outbox.IsLedgerType(typ):
		return "the type of one of the ledger's events"
	}
	return ""
}

// EventTypes returns, sorted, the event types a subscriber may name: the
// ledger's and those the plugins emit (Registry.EventTypes).
func (c *Caller) EventTypes() []string {
	if c.api.eventTypes == nil {
		return LedgerEventTypes()
	}
	return c.api.eventTypes()
}

// Tx runs fn in one transaction of the database, in which the plugin may
// add events to the outbox with emit: each takes the next event id there,
// so it commits with the change it reports or not at all. Once the
// transaction has committed, the outbox is told (webhooks and streams hear
// at once). A built-in keeps its own tables in the same transaction; a
// WebAssembly plugin's emit call is a transaction of its own.
func (c *Caller) Tx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx, emit Emitter) error) error {
	emitted := false
	err := c.api.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, tx, func(ctx context.Context, e NewEvent) error {
			if err := c.emit(ctx, tx, e); err != nil {
				return err
			}
			emitted = true
			return nil
		})
	})
	if err == nil && emitted && c.api.eventsAdded != nil {
		c.api.eventsAdded()
	}
	return err
}

// emit adds e to the outbox in tx.
func (c *Caller) emit(ctx context.Context, tx bun.Tx, e NewEvent) error {
	if err := c.allow(ctx, need{what: "emit"}); err != nil {
		return err
	}
	if !slices.Contains(c.p.Manifest.Emits, e.Type) {
		return c.api.refuse(ctx, c.p, "emit", fmt.Sprintf("event type %q is not among the manifest's emits", e.Type))
	}
	if e.WalletID == "" || e.SubjectID == "" {
		return callErrorf("invalid", "emit: wallet_id and subject_id are required")
	}
	if g := c.p.Grant(); !c.p.Builtin && e.WalletID != g.WalletID && !g.Has(EventsAll) {
		return c.api.refuse(ctx, c.p, "emit", "an event of a wallet other than the bound one needs the capability "+EventsAll)
	}
	data, err := json.Marshal(e.Data)
	if err != nil {
		return callErrorf("invalid", "emit: encoding the data: %v", err)
	}
	if len(data) == 0 || data[0] != '{' {
		return callErrorf("invalid", "emit: data is a JSON object")
	}
	if len(data) > maxEventData {
		return callErrorf("invalid", "emit: data larger than %d bytes", maxEventData)
	}
	if !c.p.Builtin {
		if exists, err := tx.NewSelect().Table("wallets").Where("id = ?", e.WalletID).Exists(ctx); err != nil {
			return fmt.Errorf("emit: looking up wallet: %w", err)
		} else if !exists {
			return callErrorf("not_found", "emit: no wallet %s", e.WalletID)
		}
	}
	_, err = tx.NewRaw("INSERT INTO plugin_events (event_id, plugin, type, wallet_id, subject_id, data, created_at) VALUES ("+
		c.api.db.EventID()+", ?, ?, ?, ?, ?, ?)", c.p.Name, e.Type, e.WalletID, e.SubjectID, string(data), time.Now().UTC()).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("emit: adding the event: %w", err)
	}
	return nil
}

func init() {
	v2Only["emit"] = true
	ops["emit"] = func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Type      string          `json:"type"`
			WalletID  string          `json:"wallet_id"`
			SubjectID string          `json:"subject_id"`
			Data      json.RawMessage `json:"data"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return nil, c.Tx(ctx, func(ctx context.Context, _ bun.Tx, emit Emitter) error {
			return emit(ctx, NewEvent{Type: in.Type, WalletID: in.WalletID, SubjectID: in.SubjectID, Data: in.Data})
		})
	}
}
