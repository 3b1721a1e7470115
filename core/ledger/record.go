package ledger

import "time"

// InvoiceRecord returns inv as the API shows it at now: what an event of
// the outbox (core/outbox) carries, decoded from the row it snapshotted.
func InvoiceRecord(inv *Invoice, now time.Time) *Invoice { return inv.present(now) }

// PaymentRecord returns p as the API shows it, like InvoiceRecord.
func PaymentRecord(p *Payment) *Payment { return p.present() }
