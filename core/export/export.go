// Package export streams a wallet's invoices and payments, or every
// wallet's, as a file an accountant opens: CSV (one row per record, the
// columns in columns.go) or JSON Lines (the API's record per line).
//
// An export reads its rows a page at a time through the lists' keyset
// ((created_at, id), oldest first, from the last row read on), the same
// queries and indexes as the lists' cursor pages, and writes and flushes
// each page before it reads the next: what it holds in memory is one page,
// whatever the number of rows. The pages are not one snapshot: a record
// that changes during an export shows as its page read it; none is read
// twice, and none is skipped for sharing its created_at with another.
package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// PageRows is how many rows an export reads at a time.
const PageRows = 1000

// Source is what an export reads: the ledger's lists (ledger.Service).
type Source interface {
	Invoices(ctx context.Context, f ledger.Filter) ([]ledger.Invoice, error)
	Payments(ctx context.Context, f ledger.Filter) ([]ledger.Payment, error)
}

// Sink is where an export goes: written to, and flushed after each page
// so that the reader gets the rows as they are read.
type Sink interface {
	io.Writer
	Flush() error
}

// Options say what an export writes.
type Options struct {
	Format Format
	// WalletColumn adds the records' wallet_id (an export across wallets).
	WalletColumn bool
	// PageRows is how many rows it reads at a time; PageRows when 0.
	PageRows int
}

// ErrRange is the error of a span whose end is not after its start.
var ErrRange = fault.Invalidf("Invalid range: to must be after from")

// Span keeps the records created from From (inclusive) to To (exclusive);
// either may be nil for no bound.
type Span struct {
	From, To *time.Time
}

// Apply narrows f to the span. The ledger keeps times to the microsecond,
// so the records before To are those at or before To rounded up to a
// microsecond, less one (ledger.Filter.Until is inclusive).
func (s Span) Apply(f *ledger.Filter) error {
	if s.From != nil && s.To != nil && !s.To.After(*s.From) {
		return ErrRange
	}
	if s.From != nil {
		from := s.From.UTC()
		f.From = &from
	}
	if s.To != nil {
		to := s.To.UTC()
		if t := to.Truncate(time.Microsecond); t.Before(to) {
			to = t.Add(time.Microsecond)
		}
		until := to.Add(-time.Microsecond)
		f.Until = &until
	}
	return nil
}

// Payments writes the payments f selects (its Page is ignored) to out,
// oldest first. An error before anything reached out leaves out
// untouched; one after has written part of the export.
func Payments(ctx context.Context, src Source, f ledger.Filter, o Options, out Sink) error {
	enc, err := newEncoder(o.Format, out, paymentColumns(o.WalletColumn))
	if err != nil {
		return err
	}
	return run(ctx, f, o, src.Payments, paymentAt, enc, out)
}

// Invoices writes the invoices f selects (its Page is ignored) to out,
// oldest first, as Payments does.
func Invoices(ctx context.Context, src Source, f ledger.Filter, o Options, out Sink) error {
	enc, err := newEncoder(o.Format, out, invoiceColumns(o.WalletColumn))
	if err != nil {
		return err
	}
	return run(ctx, f, o, src.Invoices, invoiceAt, enc, out)
}

func paymentAt(p *ledger.Payment) store.Cursor { return store.Cursor{CreatedAt: p.CreatedAt, ID: p.ID} }

func invoiceAt(i *ledger.Invoice) store.Cursor { return store.Cursor{CreatedAt: i.CreatedAt, ID: i.ID} }

// run reads the pages of list and writes each through enc, then flushes
// out. The first page is read before anything is written, so that a
// refused filter (a bad status) or a database down at the start is an
// error out never saw.
func run[T any](ctx context.Context, f ledger.Filter, o Options, list func(context.Context, ledger.Filter) ([]T, error),
	at func(*T) store.Cursor, enc *encoder[T], out Sink) error {
	size := o.PageRows
	if size <= 0 {
		size = PageRows
	}
	f.Page = store.Page{Limit: size, Asc: true}
	for {
		rows, err := list(ctx, f)
		if err != nil {
			return fmt.Errorf("reading the export's rows: %w", err)
		}
		for i := range rows {
			if err := enc.row(&rows[i]); err != nil {
				return fmt.Errorf("writing the export: %w", err)
			}
		}
		if err := enc.flush(); err != nil {
			return fmt.Errorf("writing the export: %w", err)
		}
		if err := out.Flush(); err != nil {
			return fmt.Errorf("flushing the export: %w", err)
		}
		if len(rows) < size {
			return nil
		}
		c := at(&rows[len(rows)-1])
		f.Page.After = &c
		if err := ctx.Err(); err != nil {
			return errors.Join(errors.New("export stopped"), err)
		}
	}
}
