package export

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hearthwallet/hearth/core/fault"
)

// Format is an export's file format.
type Format string

// The formats.
const (
	// CSV is RFC 4180 text with a header row (lines end in LF; a cell
	// that holds a line break is quoted and keeps it as it is).
	CSV Format = "csv"
	// JSONLines is one record per line, as the API's lists give it
	// (https://jsonlines.org).
	JSONLines Format = "jsonl"
)

// ParseFormat reads a format's name: csv (also ""), jsonl or json (JSON
// Lines).
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "csv":
		return CSV, nil
	case "jsonl", "json":
		return JSONLines, nil
	}
	return "", fault.Invalidf("Invalid format: expected csv or jsonl")
}

// ContentType is the media type of the format's files.
func (f Format) ContentType() string {
	if f == JSONLines {
		return "application/jsonl; charset=utf-8"
	}
	return "text/csv; charset=utf-8"
}

// Extension is the format's file name extension, without the dot.
func (f Format) Extension() string { return string(f) }

// encoder writes records of type T in one format into a buffer that
// flush hands to the sink; the CSV header goes first, even in an export
// of no rows.
type encoder[T any] struct {
	buf     *bufio.Writer
	csv     *csv.Writer // CSV only
	json    *json.Encoder
	columns []column[T]
	cells   []string
	headed  bool
}

// bufferBytes is the size of an encoder's buffer: a page of rows goes out
// in writes of this size at most.
const bufferBytes = 32 << 10

func newEncoder[T any](f Format, out io.Writer, columns []column[T]) (*encoder[T], error) {
	e := &encoder[T]{buf: bufio.NewWriterSize(out, bufferBytes), columns: columns}
	switch f {
	case CSV:
		e.csv = csv.NewWriter(e.buf)
		e.cells = make([]string, len(columns))
	case JSONLines:
		e.json = json.NewEncoder(e.buf)
		e.json.SetEscapeHTML(false)
		e.headed = true // no header
	default:
		return nil, fmt.Errorf("export format %q: %w", f, fault.Invalidf("Invalid format: expected csv or jsonl"))
	}
	return e, nil
}

// row writes one record.
func (e *encoder[T]) row(r *T) error {
	if e.json != nil {
		return e.json.Encode(r)
	}
	if err := e.header(); err != nil {
		return err
	}
	for i, c := range e.columns {
		e.cells[i] = Defuse(c.value(r))
	}
	return e.csv.Write(e.cells)
}

// header writes the CSV header row once.
func (e *encoder[T]) header() error {
	if e.headed {
		return nil
	}
	e.headed = true
	for i, c := range e.columns {
		e.cells[i] = c.name
	}
	return e.csv.Write(e.cells)
}

// flush hands what is buffered to the sink.
func (e *encoder[T]) flush() error {
	if e.csv != nil {
		if err := e.header(); err != nil {
			return err
		}
		e.csv.Flush()
		if err := e.csv.Error(); err != nil {
			return err
		}
	}
	return e.buf.Flush()
}

// Defuse makes a cell safe to open in a spreadsheet: text that begins with
// = + - @, a tab or a carriage return would be run as a formula (CSV
// injection), so it gets a leading apostrophe, as OWASP advises; the
// spreadsheet shows the text and keeps the apostrophe out of sight.
// Numbers and times never begin with one of those.
func Defuse(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
