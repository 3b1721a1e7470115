package outbox

import (
	"context"
	"database/sql"
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
// So each reading of the sequence's last value L is followed by a reading
// of the next transaction id to be given out, N (hearth_events_horizon,
// migrations 20261123000091 and 20261125000001, through age(), which takes
// no transaction id: a reading writes nothing): every transaction that
// took an event id up to L had its transaction id before (hearth_event_id
// takes one before the event id), hence below N. L becomes the head once
// no transaction below N that writes events in this schema is running, as
// a snapshot taken after N tells: the reading's own second snapshot when
// none was running then (migration 20261127000010), else a later
// reading's.
//
// The snapshot alone settles a mark once every transaction below N has
// ended (N ≤ the snapshot's xmin): under load that is the next reading, a
// few milliseconds on. A mark still waiting after writersAfter readings
// asks for the writers of events too (hearth_event_id names their
// sessions), so that only they are waited for: a writer of events that
// runs long (a session left idle in such a transaction) delays the head,
// never an event's order; other transactions, of this database or others,
// delay it by writersAfter readings at most.
type horizon struct {
	pending []mark // oldest first
	head    int64  // the last mark settled
}

// mark is a value L of the sequence and the next transaction id N, read
// after it.
type mark struct {
	last   int64
	xid    uint64
	waited int // readings since it was taken
}

// horizonQuery reads the snapshot (and, when asked, the transaction ids
// of the sessions writing events), then the sequence's last value, then,
// when that is above what the horizon knows, takes the reading's mark and
// the xmin of a snapshot taken after it (migration 20261127000010): when
// no transaction was running, the mark settles in the reading that took
// it.
// A Hot query: read up to 40 times a second, it stays prepared (pgx's
// statement cache) instead of being parsed and planned at each reading.
var horizonQuery = store.NewHot("SELECT snap, writers, last_id, mark_xid, after_xmin FROM hearth_events_horizon(?, ?)")

// writersAfter is how many readings a mark waits on the snapshot alone
// before the writers of events are read too.
const writersAfter = 3

// horizonRetry is how soon the head is read again while marks wait.
const horizonRetry = 10 * time.Millisecond

// advance settles the marks it can and takes a new one; it returns the
// head and whether marks wait.
func (h *horizon) advance(ctx context.Context, db *store.DB) (head int64, pending bool, err error) {
	writers := len(h.pending) > 0 && h.pending[0].waited >= writersAfter
	known := h.head
	if n := len(h.pending); n > 0 {
		known = h.pending[n-1].last
	}
	var text, ours string
	var last int64
	var markXID, afterXmin sql.NullString
	if err := db.QueryRow(ctx, db.W, horizonQuery, []any{&text, &ours, &last, &markXID, &afterXmin}, known, writers); err != nil {
		return h.head, len(h.pending) > 0, fmt.Errorf("reading the events horizon: %w", err)
	}
	snap, err := parseSnapshot(text)
	if err != nil {
		return h.head, len(h.pending) > 0, err
	}
	// Every transaction below oldest has ended, or writes no events.
	oldest := snap.xmin
	if writers {
		mine, err := parseXIDs(ours)
		if err != nil {
			return h.head, true, err
		}
		// pg_stat_activity's ids carry no epoch: they take the snapshot's.
		// A writer's id may be at or above xmax (given out after the
		// latest transaction to end), and then in no snapshot's list.
		oldest = math.MaxUint64
		for _, x := range mine {
			oldest = min(oldest, inEpochOf(snap.xmax, x))
		}
	}
	h.settleBelow(oldest)
	for i := range h.pending {
		h.pending[i].waited++
	}
	if !markXID.Valid {
		return h.head, len(h.pending) > 0, nil
	}
	// This reading's mark, which the snapshot taken after it settles when
	// no transaction below it was running then, or else a later reading.
	xid, err := strconv.ParseUint(markXID.String, 10, 64)
	if err != nil {
		return h.head, len(h.pending) > 0, fmt.Errorf("the events horizon's mark %q: %w", markXID.String, err)
	}
	h.pending = append(h.pending, mark{last: last, xid: xid})
	if len(h.pending) > 64 {
		h.pending = slices.Delete(h.pending, 32, len(h.pending)-1)
	}
	if afterXmin.Valid {
		after, err := strconv.ParseUint(afterXmin.String, 10, 64)
		if err != nil {
			return h.head, true, fmt.Errorf("the events horizon's later xmin %q: %w", afterXmin.String, err)
		}
		h.settleBelow(after)
	}
	return h.head, len(h.pending) > 0, nil
}

// settleBelow settles the marks that no running transaction precedes,
// every transaction below oldest having ended: the newest such mark is
// the head, and the older ones go with it.
func (h *horizon) settleBelow(oldest uint64) {
	for i := len(h.pending) - 1; i >= 0; i-- {
		if h.pending[i].xid <= oldest {
			h.head = max(h.head, h.pending[i].last)
			h.pending = slices.Delete(h.pending, 0, i+1)
			return
		}
	}
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

// inEpochOf returns the 32-bit transaction id x as the full id nearest
// to ref: PostgreSQL's running ids are within 2^31 of each other.
func inEpochOf(ref, x uint64) uint64 {
	return uint64(int64(ref) + int64(int32(uint32(x)-uint32(ref))))
}

// snapshot is what the horizon uses of PostgreSQL's pg_snapshot:
// transactions before xmin have ended, and none from xmax on had begun.
type snapshot struct {
	xmin, xmax uint64
}

// parseSnapshot reads "xmin:xmax:xip,xip,…"; the running ids (xip) are
// not needed, since the writers are compared with a mark themselves.
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
