package outbox

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/core/store"
)

// horizon finds, on PostgreSQL, the highest event id below which no event
// can still commit. Ids come from a sequence when each event is written,
// but transactions commit in any order: a consumer that read id 11 while
// the transaction holding id 10 was still running would skip 10 for good.
//
// So each reading of the sequence's last value L is followed, in a
// statement of its own, by reading the next transaction id to be given
// out, N (the xmax of a new snapshot): every transaction that took an
// event id up to L had its transaction id before (hearth_event_id takes
// one before the event id), hence below N. (Reading N assigns no id: an
// id of the reader's own would make each reading a commit to flush.) L becomes the head once no transaction below N
// that writes events in this schema is running (hearth_event_id names its
// session for that, before its insert). (A snapshot's list of running
// transactions alone would not do: it leaves out those that began after
// the last one to end.) A writer of events that runs long (a session left
// idle in such a transaction) delays the head, never an event's order;
// other transactions, of this database or others, are not waited for.
type horizon struct {
	pending []mark // oldest first
	head    int64  // the last mark settled
}

// mark is a value L of the sequence and a transaction id N taken after it
// was read.
type mark struct {
	last int64
	xid  uint64
}

// runningQuery reads the snapshot of the running transactions, and the
// transaction ids of the sessions writing events in this schema:
// hearth_event_id names them (migration 20261123000031_events).
const runningQuery = `SELECT pg_current_snapshot()::text,
    COALESCE(array_to_string(ARRAY(SELECT backend_xid FROM pg_stat_activity
        WHERE datname = current_database() AND backend_xid IS NOT NULL
          AND application_name = left('hearth_events:' || current_schema(), 63)), ','), '')`

// horizonRetry is how soon the head is read again while marks wait.
const horizonRetry = 10 * time.Millisecond

// advance settles the marks it can and takes a new one; it returns the
// head and whether marks wait.
func (h *horizon) advance(ctx context.Context, db *store.DB) (head int64, pending bool, err error) {
	if len(h.pending) > 0 {
		var text, ours string
		if err := db.R.NewRaw(runningQuery).Scan(ctx, &text, &ours); err != nil {
			return 0, false, fmt.Errorf("reading the running transactions: %w", err)
		}
		snap, err := parseSnapshot(text)
		if err != nil {
			return 0, false, err
		}
		mine, err := parseXIDs(ours)
		if err != nil {
			return 0, false, err
		}
		// The snapshot's ids carry the epoch, pg_stat_activity's do not.
		oldest := uint64(math.MaxUint64)
		for _, x := range snap.running {
			if slices.Contains(mine, x&0xffffffff) {
				oldest = min(oldest, x)
			}
		}
		// The newest mark that no running transaction precedes is the
		// head; the older ones are settled with it.
		for i := len(h.pending) - 1; i >= 0; i-- {
			if h.pending[i].xid <= oldest {
				h.head = max(h.head, h.pending[i].last)
				h.pending = slices.Delete(h.pending, 0, i+1)
				break
			}
		}
	}
	var last int64
	var called bool
	if err := db.R.NewRaw("SELECT last_value, is_called FROM events_id_seq").Scan(ctx, &last, &called); err != nil {
		return h.head, len(h.pending) > 0, fmt.Errorf("reading the events sequence: %w", err)
	}
	if !called {
		last = 0
	}
	if last > h.head && (len(h.pending) == 0 || h.pending[len(h.pending)-1].last < last) {
		var xid uint64
		if err := db.R.NewRaw("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint").Scan(ctx, &xid); err != nil {
			return h.head, len(h.pending) > 0, fmt.Errorf("reading the next transaction id: %w", err)
		}
		h.pending = append(h.pending, mark{last: last, xid: xid})
		if len(h.pending) > 64 {
			h.pending = slices.Delete(h.pending, 32, len(h.pending)-1)
		}
	}
	return h.head, len(h.pending) > 0, nil
}

// settle advances until the events written before it was called are
// readable (or ctx ends), so that a new consumer starts after them.
func (h *horizon) settle(ctx context.Context, db *store.DB) (int64, error) {
	if _, _, err := h.advance(ctx, db); err != nil {
		return 0, err
	}
	if len(h.pending) == 0 {
		return h.head, nil
	}
	target := h.pending[len(h.pending)-1].last
	for h.head < target {
		select {
		case <-ctx.Done():
			return h.head, ctx.Err()
		case <-time.After(horizonRetry):
		}
		if _, _, err := h.advance(ctx, db); err != nil {
			return 0, err
		}
	}
	return h.head, nil
}

// snapshot is PostgreSQL's pg_snapshot: transactions before xmin have
// ended, those in running have not, and none from xmax on had begun.
type snapshot struct {
	xmin, xmax uint64
	running    []uint64
}

// parseSnapshot reads "xmin:xmax:xip,xip,…".
func parseSnapshot(text string) (snapshot, error) {
	parts := strings.Split(text, ":")
	if len(parts) != 3 {
		return snapshot{}, fmt.Errorf("unexpected snapshot %q", text)
	}
	var s snapshot
	var err error
	if s.xmin, err = strconv.ParseUint(parts[0], 10, 64); err != nil {
		return snapshot{}, fmt.Errorf("snapshot %q: %w", text, err)
	}
	if s.xmax, err = strconv.ParseUint(parts[1], 10, 64); err != nil {
		return snapshot{}, fmt.Errorf("snapshot %q: %w", text, err)
	}
	if s.running, err = parseXIDs(parts[2]); err != nil {
		return snapshot{}, fmt.Errorf("snapshot %q: %w", text, err)
	}
	return s, nil
}

// parseXIDs reads transaction ids separated by commas.
func parseXIDs(text string) ([]uint64, error) {
	var xids []uint64
	if text == "" {
		return nil, nil
	}
	for _, f := range strings.Split(text, ",") {
		x, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("transaction id %q: %w", f, err)
		}
		xids = append(xids, x)
	}
	return xids, nil
}
