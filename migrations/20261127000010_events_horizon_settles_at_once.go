package migrations

import "strings"

// hearth_events_horizon's mark N (20261125000001, with the last id of
// 20261126000001) was settled by a later reading only: the reading's own
// snapshot is taken before N is read. At low rates every head that moved
// took two readings, the second horizonRetry (10 ms) later, although no
// transaction was running between them. The function now also answers
// after_xmin, the xmin of a snapshot taken once N is read: when it is N or
// above, every transaction below N has ended, and the reader settles the
// mark at once (core/outbox/horizon.go). A snapshot taken after N, or one
// taken before whose xmin is N (no transaction then running, none begun
// since), says the same, so the answer is sound at any isolation level.
// The reading still takes no transaction id.
var (
	eventsHorizonAtOnceUp = `DROP FUNCTION hearth_events_horizon(BIGINT, BOOLEAN);
` + strings.NewReplacer(
		"CREATE OR REPLACE FUNCTION", "CREATE FUNCTION",
		"OUT mark_xid TEXT)", "OUT mark_xid TEXT, OUT after_xmin TEXT)",
		`        mark_xid := (x - x % 4294967296 + ref + age(ref::text::xid))::text;
`, `        mark_xid := (x - x % 4294967296 + ref + age(ref::text::xid))::text;
        after_xmin := pg_snapshot_xmin(pg_current_snapshot())::text;
`,
	).Replace(eventsHorizonPair)
	eventsHorizonAtOnceDown = `DROP FUNCTION hearth_events_horizon(BIGINT, BOOLEAN);
` + eventsHorizonPair
)

func init() {
	if strings.Count(eventsHorizonAtOnceUp, "after_xmin") != 2 || !strings.Contains(eventsHorizonAtOnceUp, "last_value + 1") {
		panic("migrations: 20261127000010 did not find hearth_events_horizon's outputs and mark")
	}
	All.MustRegister(onPostgres(eventsHorizonAtOnceUp), onPostgres(eventsHorizonAtOnceDown))
}
