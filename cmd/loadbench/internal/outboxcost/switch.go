package outboxcost

import (
	"context"
	"fmt"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/core/store"
)

// outboxSwitch turns the outbox on and off between the rounds: its reader everywhere, and on
// PostgreSQL its writes, by replacing hearth_event_id() for the round.
type outboxSwitch struct {
	db     *store.DB
	events *fixture.Events
	// eventID is hearth_event_id()'s definition as the migrations left it
	// (PostgreSQL only), to put back when the outbox turns on.
	eventID string
	on      bool
}

// noEventID is hearth_event_id() of the rounds without the outbox: no
// event id, nothing named, nothing taken. Immutable, so the planner folds
// the call into a constant.
const noEventID = `CREATE OR REPLACE FUNCTION hearth_event_id() RETURNS BIGINT
LANGUAGE sql IMMUTABLE AS 'SELECT NULL::BIGINT'`

// newOutboxSwitch reads what it needs to turn the outbox of db back on;
// the outbox is on.
func newOutboxSwitch(ctx context.Context, db *store.DB, events *fixture.Events) (*outboxSwitch, error) {
	s := &outboxSwitch{db: db, events: events, on: true}
	if db.Dialect != store.Postgres {
		return s, nil
	}
	err := db.W.QueryRowContext(ctx, "SELECT pg_get_functiondef('hearth_event_id()'::regprocedure)").Scan(&s.eventID)
	if err != nil {
		return nil, fmt.Errorf("reading hearth_event_id(): %w", err)
	}
	return s, nil
}

// set turns the outbox on or off.
func (s *outboxSwitch) set(ctx context.Context, on bool) error {
	if on == s.on {
		return nil
	}
	if s.db.Dialect == store.Postgres {
		def := noEventID
		if on {
			def = s.eventID
		}
		if _, err := s.db.W.ExecContext(ctx, def); err != nil {
			return fmt.Errorf("replacing hearth_event_id(): %w", err)
		}
	}
	s.events.SetReader(on)
	s.on = on
	return nil
}

// lastEventID returns the last event id given out on db: on PostgreSQL
// the sequence's last value (which moves by 2 for each id, the id after it
// being its internal payment's second event), on SQLite the next id less
// one, as the outbox's head reads it.
func lastEventID(ctx context.Context, db *store.DB) (int64, error) {
	query := "SELECT " + db.EventID() + " - 1"
	if db.Dialect == store.Postgres {
		query = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq"
	}
	var id int64
	if err := db.R.QueryRowContext(ctx, query).Scan(&id); err != nil {
		return 0, fmt.Errorf("reading the last event id: %w", err)
	}
	return id, nil
}
