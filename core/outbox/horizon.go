package outbox

import (
	"context"
	"fmt"
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
// So each reading of the sequence's last value L is followed by a
// snapshot of the running transactions. Every transaction that took an id
// up to L had a transaction id before that snapshot (the trigger takes one
// before its insert), so it is among the snapshot's running ones or has
// ended; L becomes the head once all of those have ended. A transaction
// of this database that runs long (a session left idle in a transaction
// that wrote) delays the head, never an event's order; those of the
// cluster's other databases are left out.
type horizon struct {
	pending []mark // oldest first
}

// mark is a value of the sequence and the transactions that ran just after
// it was read.
type mark struct {
	last    int64
	running []uint64
}

// runningQuery reads the snapshot of the running transactions, and the
// transaction ids of this database's sessions: those of other databases
// of the cluster write no event here and need no wait.
const runningQuery = `SELECT pg_current_snapshot()::text,
    COALESCE(array_to_string(ARRAY(SELECT backend_xid FROM pg_stat_activity
        WHERE datname = current_database() AND backend_xid IS NOT NULL), ','), '')`

// horizonRetry is how soon the head is read again while marks wait.
const horizonRetry = 5 * time.Millisecond

func (h *horizon) advance(ctx context.Context, db *store.DB) (head int64, pending bool, err error) {
	var last int64
	var called bool
	if err := db.R.NewRaw("SELECT last_value, is_called FROM events_id_seq").Scan(ctx, &last, &called); err != nil {
		return 0, false, fmt.Errorf("reading the events sequence: %w", err)
	}
	if !called {
		last = 0
	}
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
	running := slices.DeleteFunc(slices.Clone(snap.running), func(x uint64) bool { return !slices.Contains(mine, x&0xffffffff) })
	h.pending = append(h.pending, mark{last: last, running: running})
	// The newest mark whose transactions have all ended is the head; the
	// older ones are settled with it.
	for i := len(h.pending) - 1; i >= 0; i-- {
		if snap.ended(h.pending[i].running) {
			head = h.pending[i].last
			h.pending = slices.Delete(h.pending, 0, i+1)
			break
		}
	}
	h.pending = compact(h.pending)
	return head, len(h.pending) > 0, nil
}

// compact keeps one mark per value of the sequence (the oldest, which
// ends first) and at most 64 marks.
func compact(ms []mark) []mark {
	out := ms[:0]
	for _, m := range ms {
		if len(out) > 0 && out[len(out)-1].last >= m.last {
			continue
		}
		out = append(out, m)
	}
	if len(out) > 64 {
		out = slices.Delete(out, 32, len(out)-1)
	}
	return out
}

// snapshot is PostgreSQL's pg_snapshot: transactions before xmin have
// ended, those in running have not, and none from xmax on had begun.
type snapshot struct {
	xmin, xmax uint64
	running    []uint64
}

// ended reports whether every transaction of xids has ended by s.
func (s snapshot) ended(xids []uint64) bool {
	for _, x := range xids {
		if x >= s.xmin && slices.Contains(s.running, x) {
			return false
		}
	}
	return true
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
