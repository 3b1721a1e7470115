package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// Hot is a query that most requests run, written once with ? placeholders
// and run with its arguments bound, never written into the text. It is
// prepared once per connection and then run with no parsing and planning
// again: on PostgreSQL, where the pool otherwise speaks pgx's simple
// protocol (bun interpolates its queries), by pgx's statement cache, half
// the server's work for a short query; on SQLite by the connections Open
// makes (preparingConn), a fifth of the CPU of a payment.
type Hot struct {
	sqlite   string
	postgres string
}

// NewHot returns the hot query q, whose ? are its parameters (q holds no
// other ?, and at least one); EventToken in q is the next event id. Hot queries are package variables: each
// stays prepared on every connection that has run it.
func NewHot(q string) *Hot {
	var pg strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			pg.WriteString("$" + strconv.Itoa(n))
			continue
		}
		pg.WriteRune(r)
	}
	h := &Hot{sqlite: withEventID(q, SQLite), postgres: withEventID(pg.String(), Postgres)}
	// The text SQLite runs is the one its connections keep prepared.
	hotTexts.LoadOrStore(h.sqlite, new(atomic.Int64))
	return h
}

// QueryRow runs h on on (db.W or db.R) and scans its one row into dest with
// bun's scanners (a model, or one value per column); sql.ErrNoRows when it
// answers none.
func (db *DB) QueryRow(ctx context.Context, on *bun.DB, h *Hot, dest []any, args ...any) error {
	q, args := db.bind(h, args)
	rows, err := on.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := on.ScanRow(ctx, rows, dest...); err != nil {
		return fmt.Errorf("scanning: %w", err)
	}
	return rows.Close()
}

// QueryAll runs h on on (db.W or db.R) and scans all its rows into dest, a
// pointer to a slice of models, with bun's scanners.
func (db *DB) QueryAll(ctx context.Context, on *bun.DB, h *Hot, dest any, args ...any) error {
	q, args := db.bind(h, args)
	rows, err := on.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := on.ScanRows(ctx, rows, dest); err != nil {
		return fmt.Errorf("scanning: %w", err)
	}
	return rows.Close()
}

// Exec runs the hot statement h inside tx.
func (db *DB) Exec(ctx context.Context, tx bun.Tx, h *Hot, args ...any) (sql.Result, error) {
	q, args := db.bind(h, args)
	return tx.Tx.ExecContext(ctx, q, args...)
}

// sqliteTime is how bun writes a time into SQLite's text, which the bound
// value must match to the byte, since SQLite compares times as text.
const sqliteTime = "2006-01-02 15:04:05.999999-07:00"

// bind returns h's text and args for db: PostgreSQL's $n and the mode that
// makes pgx prepare it; on SQLite, times as bun writes them.
func (db *DB) bind(h *Hot, args []any) (string, []any) {
	if db.Dialect == Postgres {
		return h.postgres, append([]any{pgx.QueryExecModeCacheStatement}, args...)
	}
	bound := args
	for i, a := range args {
		var text string
		switch t := a.(type) {
		case time.Time:
			text = sqliteTimeText(t)
		case *time.Time:
			if t == nil {
				continue
			}
			text = sqliteTimeText(*t)
		default:
			continue
		}
		if &bound[0] == &args[0] {
			bound = slices.Clone(args) // the caller's slice stays as it was
		}
		bound[i] = text
	}
	return h.sqlite, bound
}

// boundTime is a time and its text in SQLite, as bind wrote it last.
type boundTime struct {
	at   time.Time
	text string
}

// lastBound is the time bind wrote last: a payment binds its one timestamp
// into each of its statements (the debit, the invoice's settlement, the
// credit, the payment's record), and formatting it each time was some 1.5 %
// of the CPU of a payment on SQLite.
var lastBound atomic.Pointer[boundTime]

// sqliteTimeText is t as bun writes it into SQLite.
func sqliteTimeText(t time.Time) string {
	if b := lastBound.Load(); b != nil && b.at.Equal(t) {
		return b.text
	}
	text := t.UTC().Format(sqliteTime)
	lastBound.Store(&boundTime{at: t, text: text})
	return text
}
