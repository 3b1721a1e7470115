package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// Hot is a query that most requests run, written once with ? placeholders.
// On PostgreSQL, where the pool otherwise speaks pgx's simple protocol
// (bun interpolates its queries), pgx prepares a Hot query once per
// connection and then runs it in one round trip with no parsing and
// planning again: half the server's work for a short query. SQLite parses
// each statement anyway, so there it is an ordinary query.
type Hot struct {
	sqlite   string
	postgres string
}

// NewHot returns the hot query q, whose ? are its parameters (q holds no
// other ?).
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
	return &Hot{sqlite: q, postgres: pg.String()}
}

// QueryRow runs h on on (db.W or db.R) and scans its one row into dest with
// bun's scanners (a model, or one value per column); sql.ErrNoRows when it
// answers none.
func (db *DB) QueryRow(ctx context.Context, on *bun.DB, h *Hot, dest []any, args ...any) error {
	q := h.sqlite
	if db.Dialect == Postgres {
		q = h.postgres
		args = append([]any{pgx.QueryExecModeCacheStatement}, args...)
	}
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
