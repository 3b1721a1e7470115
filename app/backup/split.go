package backup

import (
	"fmt"

	"github.com/hearthwallet/hearth/core/store"
)

// splitChunk is how many event ids one read of settled rows spans: some
// 10,000 rows of each table (internal payments take two ids, one for their
// invoice's event), read in a tenth of a second or so. Each read holds
// PostgreSQL's cleanup horizon while it runs, as the one snapshot did for
// the whole copy, so the reads are short.
const splitChunk = 25_000

// ledgerSplit is how a backup of PostgreSQL reads the ledger's two large
// tables (store.Split): the rows that may still change in the copy's
// snapshot, and the settled history after it, a chunk of event ids at a
// time.
//
// Why a settled row read later is the snapshot's (core/ledger/checkpoint.go
// argues the same for the ledger's sums): a row becomes Settled only in
// the statement that gives it a new event id, and nothing changes a
// Settled row's status, amounts or event id again. An invoice that an
// internal payment settled on PostgreSQL has no event id of its own and
// goes with its payment's. So with the bound B of the snapshot, a row
// Settled with an id up to B is, whenever it is read, the row the
// snapshot holds. What may differ are columns written after a settlement
// that no sum reads: an on-chain deposit's confirmations and a payment's
// success action, which the copy then holds newer. Pending and Failed rows
// (Failed may still settle) and the rows settled above B are read in the
// snapshot, through the partial indexes of status and event id.
var ledgerSplit = []store.SplitTable{
	{
		Name: "payments",
		Live: func(cols string, bound int64) string {
			return fmt.Sprintf(`SELECT %[1]s FROM payments t WHERE t.status = 'Pending'
UNION ALL SELECT %[1]s FROM payments t WHERE t.status = 'Failed'
UNION ALL SELECT %[1]s FROM payments t WHERE t.event_id > %[2]d AND t.status = 'Settled'`, cols, bound)
		},
		Final: func(cols string, from, to int64) string {
			return fmt.Sprintf(`SELECT %s FROM payments t WHERE t.event_id > %d AND t.event_id <= %d AND t.status = 'Settled'`, cols, from, to)
		},
	},
	{
		Name: "invoices",
		Live: func(cols string, bound int64) string {
			return fmt.Sprintf(`SELECT %[1]s FROM invoices t WHERE t.status = 'Pending'
UNION ALL %[2]s`, cols, settledInvoices(cols, bound, -1))
		},
		Final: func(cols string, from, to int64) string { return settledInvoices(cols, from, to) },
	},
}

// settledInvoices selects the invoices that settled with event ids in
// (from, to], to -1 for no end: by their own ids, or by their internal
// payments'.
func settledInvoices(cols string, from, to int64) string {
	upTo := func(col string) string {
		if to < 0 {
			return ""
		}
		return fmt.Sprintf(" AND %s <= %d", col, to)
	}
	return fmt.Sprintf(`SELECT %[1]s FROM invoices t WHERE t.event_id > %[2]d%[3]s AND t.status = 'Settled'
UNION ALL SELECT %[1]s FROM payments p JOIN invoices t ON t.payment_hash = p.payment_hash
 WHERE p.event_id > %[2]d%[4]s AND p.status = 'Settled' AND p.ledger = 'Internal' AND t.event_id IS NULL AND t.status = 'Settled'`,
		cols, from, upTo("t.event_id"), upTo("p.event_id"))
}
