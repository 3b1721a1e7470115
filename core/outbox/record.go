package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/ledger"
)

// records are the records that events without a copy of theirs report:
// settled invoices and payments, which never change again.
type records struct {
	invoices map[string]ledger.Invoice
	payments map[string]ledger.Payment
}

// records reads the records of rows that carry no copy.
func (o *Outbox) records(ctx context.Context, rows []row) (records, error) {
	var invIDs, payIDs []string
	for _, r := range rows {
		if r.Data != nil {
			continue
		}
		switch {
		case strings.HasPrefix(r.Type, "invoice."):
			invIDs = append(invIDs, r.SubjectID)
		case strings.HasPrefix(r.Type, "payment."):
			payIDs = append(payIDs, r.SubjectID)
		}
	}
	recs := records{invoices: map[string]ledger.Invoice{}, payments: map[string]ledger.Payment{}}
	if len(invIDs) > 0 {
		var invs []ledger.Invoice
		if err := o.db.R.NewSelect().Model(&invs).Where("id IN (?)", bun.In(invIDs)).Scan(ctx); err != nil {
			return recs, fmt.Errorf("reading the invoices of events: %w", err)
		}
		for _, inv := range invs {
			recs.invoices[inv.ID] = inv
		}
	}
	if len(payIDs) > 0 {
		var ps []ledger.Payment
		if err := o.db.R.NewSelect().Model(&ps).Where("id IN (?)", bun.In(payIDs)).Scan(ctx); err != nil {
			return recs, fmt.Errorf("reading the payments of events: %w", err)
		}
		for _, p := range ps {
			recs.payments[p.ID] = p
		}
	}
	return recs, nil
}

// decode turns a row of the events table into the Event consumers get:
// its record, from its copy or read now, as the API shows it. A record
// gone since (its wallet deleted) leaves the event without data.
func decode(r *row, recs records) (Event, error) {
	e := Event{ID: r.ID, Type: r.Type, CreatedAt: r.CreatedAt.UTC(), WalletID: r.WalletID, SubjectID: r.SubjectID}
	switch {
	case strings.HasPrefix(r.Type, "invoice."):
		inv, ok := recs.invoices[r.SubjectID]
		if r.Data != nil {
			inv, ok = ledger.Invoice{}, true
			if err := decodeColumns([]byte(*r.Data), &inv); err != nil {
				return Event{}, fmt.Errorf("event %d: %w", r.ID, err)
			}
		}
		if ok {
			e.Data = ledger.InvoiceRecord(&inv, e.CreatedAt)
		}
	case strings.HasPrefix(r.Type, "payment."):
		p, ok := recs.payments[r.SubjectID]
		if r.Data != nil {
			p, ok = ledger.Payment{}, true
			if err := decodeColumns([]byte(*r.Data), &p); err != nil {
				return Event{}, fmt.Errorf("event %d: %w", r.ID, err)
			}
		}
		if ok {
			e.Data = ledger.PaymentRecord(&p)
		}
	case r.Data != nil:
		e.Data = json.RawMessage(*r.Data)
	}
	return e, nil
}

var timeType = reflect.TypeFor[time.Time]()

// decodeColumns fills the bun model dst from a row snapshot: a JSON object
// keyed by column name, as to_jsonb (PostgreSQL) or json_object (SQLite)
// writes it. Times are RFC 3339 on PostgreSQL and SQLite's text on SQLite.
func decodeColumns(data []byte, dst any) error {
	var cols map[string]json.RawMessage
	if err := json.Unmarshal(data, &cols); err != nil {
		return fmt.Errorf("decoding snapshot: %w", err)
	}
	v := reflect.ValueOf(dst).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("bun"), ",")
		raw, ok := cols[name]
		if name == "" || name == "-" || !ok || string(raw) == "null" {
			continue
		}
		f := v.Field(i)
		target := f
		if f.Kind() == reflect.Pointer {
			target = reflect.New(f.Type().Elem()).Elem()
		}
		if target.Type() == timeType {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("decoding snapshot column %s: %w", name, err)
			}
			tm, err := parseTime(s)
			if err != nil {
				return fmt.Errorf("decoding snapshot column %s: %w", name, err)
			}
			target.Set(reflect.ValueOf(tm))
		} else if err := json.Unmarshal(raw, target.Addr().Interface()); err != nil {
			return fmt.Errorf("decoding snapshot column %s: %w", name, err)
		}
		if f.Kind() == reflect.Pointer {
			f.Set(target.Addr())
		}
	}
	return nil
}

// parseTime reads a time as PostgreSQL's JSON or SQLite's text has it.
func parseTime(s string) (time.Time, error) {
	if len(s) > 10 && s[10] == ' ' {
		s = s[:10] + "T" + s[11:]
	}
	if tm, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return tm.UTC(), nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999-07", "2006-01-02T15:04:05.999999999"} {
		if tm, err := time.Parse(layout, s); err == nil {
			return tm.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("unknown time format %q", s)
}
