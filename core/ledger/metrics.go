package ledger

import (
	"time"

	"github.com/hearthwallet/hearth/core/event"
)

// count counts, in the ledger's metrics (Config.Metrics), the change
// that the event typ of data tells, at now: where every event is
// published, after its commit, in the process that made the change. A
// payment's duration runs from its record's creation, at its request
// (once its input is resolved), to now; an internal payment's record is
// made as its transaction begins.
func (s *Service) count(typ string, data any, now time.Time) {
	switch typ {
	case event.PaymentSettled:
		if p, ok := data.(*Payment); ok {
			var fee int64
			if p.FeeMsat != nil {
				fee = *p.FeeMsat
			}
			s.m.PaymentSettled(p.Ledger, p.AmountMsat, fee, now.Sub(p.CreatedAt))
		}
	case event.PaymentFailed:
		if p, ok := data.(*Payment); ok {
			s.m.PaymentFailed(p.Ledger)
		}
	case event.InvoiceSettled:
		if inv, ok := data.(*Invoice); ok {
			var amount int64
			if inv.AmountReceivedMsat != nil {
				amount = *inv.AmountReceivedMsat
			}
			s.m.InvoiceSettled(inv.Ledger, amount)
		}
	}
}
