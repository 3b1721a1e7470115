package outbox

import (
	"context"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Advance reads the head now, as Run does on a wake-up.
func Advance(ctx context.Context, o *Outbox) error {
	_, err := o.advance(ctx)
	return err
}

// InvoicePageSQL is the SQL of Read's page of the invoices' events of f.
func InvoicePageSQL(o *Outbox, after, head int64, f Filter, limit int) string {
	var invs []ledger.Invoice
	invTypes, _ := f.tables()
	return o.invoicePage(&invs, invTypes, after, head, f, limit).String()
}
