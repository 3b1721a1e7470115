package migrations

import (
	_ "embed" // the frozen function
	"strings"
)

// An internal payment has two events, the payee's invoice.settled and the
// payer's payment.settled, and on PostgreSQL took an event id and an entry
// of a partial index for each (20261123000031_events): per payment, two
// calls of hearth_event_id() and two index entries on the batch's critical
// path, about 60 µs of the 300 µs that hearth_pay_own_batch spends on a
// payment (pg_stat_statements, loadbench -outbox-rounds). Of the two, the
// invoice's UPDATE cost more than the payment's INSERT (+22 against +14 µs).
//
// Now hearth_pay_own takes one id, v, for both events: the sequence moves
// by 2, so that v+1 is never given out; the payment records v+1 as its
// event_id, and the invoice's event id is v, derived from its payment's
// (core/outbox reads such invoices through their payments: those Internal
// and Settled whose invoice has no event_id of its own). The invoice keeps
// event_id NULL, so its UPDATE writes no entry in invoices_event_idx.
// Every other writer takes ids as before (one per event, its v+1 unused),
// and the invoices that internal payments settled earlier keep theirs.
//
// The horizon's last id is the sequence's last value plus one: a
// transaction that took v wrote v+1 too, and both are readable once it has
// ended.
//
// Reading an invoice through its payment costs a lookup by payment hash
// per internal payment: some 15 µs through the unique index of every
// invoice (text compared by collation, three levels). Nostr's consumer,
// which every server runs, wants only the invoices of a Lightning Address
// (outbox.Filter.Addressed): invoices_addressed_idx holds those alone, so
// its lookup touches a page or two, and PostgreSQL hashes them instead
// when they are few. It costs an entry for each invoice of an address,
// none for the others.
//
// hearth_pay_own as this migration wrote it is frozen in
// sql/20261126000001_pay_own_event_pair.sql; the one in use is
// sql/pay_own.sql.
//
//go:embed sql/20261126000001_pay_own_event_pair.sql
var payOwnEventPairUp string

var internalEventPairUp = `ALTER SEQUENCE events_id_seq INCREMENT BY 2;
CREATE INDEX invoices_addressed_idx ON invoices (payment_hash) WHERE ln_address_id IS NOT NULL;
` + payOwnEventPairUp + `;
` + eventsHorizonPair

// eventsHorizonPair is hearth_events_horizon as this migration wrote it:
// its last id is the sequence's last value plus one.
var eventsHorizonPair = strings.Replace(eventsHorizonNextXIDUp,
	"SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO last_id FROM events_id_seq;",
	"SELECT CASE WHEN is_called THEN last_value + 1 ELSE 0 END INTO last_id FROM events_id_seq;", 1)

func init() {
	if strings.Count(internalEventPairUp, "hearth_event_id()") != 1 ||
		!strings.Contains(internalEventPairUp, "last_value + 1") {
		panic("migrations: 20261126000001 did not find hearth_pay_own's writes or the horizon's last id")
	}
	down := `ALTER SEQUENCE events_id_seq INCREMENT BY 1;
DROP INDEX IF EXISTS invoices_addressed_idx;
` + payOwnEventsUp + ";\n" + eventsHorizonNextXIDUp
	All.MustRegister(onPostgres(internalEventPairUp), onPostgres(down))
}
