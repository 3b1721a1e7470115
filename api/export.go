package api

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/export"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
)

// exportQuery are an export's query parameters (status and ledger as the
// lists take them).
var exportQuery = []string{"format", "from", "to", "status", "ledger"}

// exportNote is the OpenAPI description of the exports.
const exportNote = "A file to download (Content-Disposition: attachment), oldest first: CSV with a header row " +
	"(format=csv, the default; a cell a spreadsheet would run as a formula, one that begins with = + - @ or a tab, " +
	"begins with an apostrophe) or JSON Lines of the list's records (format=jsonl or json). " +
	"from (inclusive) and to (exclusive, by default the time of the request) take an RFC 3339 time or a date (UTC midnight). " +
	"The rows are streamed as they are read, a page at a time: an error after the first rows went out cannot change " +
	"the status, so the server then closes the connection before the end of the answer (HTTP/1.1: no final chunk; " +
	"HTTP/2: the stream is reset), which every client reports as an error: a file that arrived whole is the whole export."

func (s *Server) exportMyPayments(w http.ResponseWriter, req bunrouter.Request) error {
	return s.exportRecords(w, req, true, "payments")
}

func (s *Server) exportPayments(w http.ResponseWriter, req bunrouter.Request) error {
	return s.exportRecords(w, req, false, "payments")
}

func (s *Server) exportMyInvoices(w http.ResponseWriter, req bunrouter.Request) error {
	return s.exportRecords(w, req, true, "invoices")
}

func (s *Server) exportInvoices(w http.ResponseWriter, req bunrouter.Request) error {
	return s.exportRecords(w, req, false, "invoices")
}

// exportRecords answers an export of kind (payments or invoices): of the
// caller's wallet on /me routes, else of every wallet or wallet_id's. An
// error before the first bytes is an error answer as any other; after,
// the connection is cut (exportNote).
func (s *Server) exportRecords(w http.ResponseWriter, req bunrouter.Request, me bool, kind string) error {
	f, format, err := exportFilter(req, me, kind == "payments")
	if err != nil {
		return err
	}
	out := newExportResponse(w, format, "hearth-"+kind+"-"+time.Now().UTC().Format(time.DateOnly)+"."+format.Extension())
	o := export.Options{Format: format, WalletColumn: !me}
	if kind == "payments" {
		err = export.Payments(req.Context(), s.ledger, f, o, out)
	} else {
		err = export.Invoices(req.Context(), s.ledger, f, o, out)
	}
	switch {
	case err == nil:
		out.finish()
		return nil
	case !out.started:
		return err
	}
	s.exportCut(req.Context(), req, err)
	panic(http.ErrAbortHandler) // net/http closes the connection before the answer's end
}

// exportCut logs an export that ended before its last row.
func (s *Server) exportCut(ctx context.Context, req bunrouter.Request, err error) {
	if ctx.Err() != nil { // the client went away: nothing wrong here
		s.log.InfoContext(ctx, "export ended by the client", "path", req.URL.Path, "request_id", requestID(ctx))
		return
	}
	s.log.ErrorContext(ctx, "export cut short", "path", req.URL.Path, "request_id", requestID(ctx), "err", err)
}

// exportFilter reads an export's query: format, from, to, status, ledger,
// wallet_id on admin routes, api_key_id on payments.
func exportFilter(req bunrouter.Request, me, payments bool) (ledger.Filter, export.Format, error) {
	q := req.URL.Query()
	format, err := export.ParseFormat(q.Get("format"))
	if err != nil {
		return ledger.Filter{}, "", err
	}
	walletID, err := scopeWallet(req, me)
	if err != nil {
		return ledger.Filter{}, "", err
	}
	ledgerName, err := ledgerParam(q.Get("ledger"))
	if err != nil {
		return ledger.Filter{}, "", err
	}
	f := ledger.Filter{WalletID: walletID, Status: q.Get("status"), Ledger: ledgerName}
	if v := q.Get("api_key_id"); v != "" && payments {
		id, err := uuid.Parse(v)
		if err != nil {
			return f, "", fault.Invalidf("Invalid api_key_id: expected a UUID")
		}
		f.APIKeyID = id.String()
	}
	var span export.Span
	if span.From, err = exportTime("from", q.Get("from")); err != nil {
		return f, "", err
	}
	if span.To, err = exportTime("to", q.Get("to")); err != nil {
		return f, "", err
	}
	if span.To == nil {
		now := time.Now()
		span.To = &now // what came in after the request is not in it
		if span.From != nil && !now.After(*span.From) {
			return f, "", fault.Invalidf("Invalid from: it is in the future")
		}
	}
	return f, format, span.Apply(&f)
}

// exportTime reads from or to: an RFC 3339 time, or a date (its midnight
// in UTC); nil when v is empty.
func exportTime(name, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return &t, nil
		}
	}
	return nil, fault.Invalidf("Invalid %s: expected an RFC 3339 time (2026-11-01T00:00:00Z) or a date (2026-11-01)", name)
}

// fileContent is an export's answer in the OpenAPI document: CSV text, or
// JSON Lines of the records that jsonMedia (the route's JSON media type
// object) describes; and its Content-Disposition header.
func fileContent(jsonMedia any) (content, headers obj) {
	return obj{"text/csv": obj{"schema": obj{"type": "string"}}, "application/jsonl": jsonMedia},
		obj{"Content-Disposition": obj{"description": `attachment; filename="hearth-payments-2026-11-28.csv" (the kind, the day of the export, the format)`,
			"schema": obj{"type": "string"}}}
}
