package scale

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// seedChunk is how many slots one statement writes.
const seedChunk = 1_000_000

// seeder is what differs between the databases in writing the books.
type seeder struct {
	db        *sql.DB
	ph        func(i int) string // the i-th placeholder, from 1
	statement func(table string) string
	lists     func(payers, payees, keys []string) []any
	indexes   string   // lists (name, definition) of the tables' indexes that no constraint makes
	before    []string // run first (session settings)
	after     []string // run last (analyze)
	lastID    func(last int64) []string
}

// seedPostgresBooks writes n slots into the PostgreSQL database at dbURL.
func seedPostgresBooks(ctx context.Context, dbURL string, n, clients int) error {
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one session: its settings hold for every statement
	return seeder{
		db:        db,
		ph:        func(i int) string { return fmt.Sprintf("$%d", i) },
		statement: seedPostgres,
		lists:     func(payers, payees, keys []string) []any { return []any{payers, payees, keys} },
		indexes: `SELECT indexname, indexdef FROM pg_indexes
  WHERE schemaname = current_schema() AND tablename IN ('invoices', 'payments')
    AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid IN ('invoices'::regclass, 'payments'::regclass))`,
		before: []string{"SET synchronous_commit = off", "SET maintenance_work_mem = '1GB'"},
		after:  []string{"VACUUM (ANALYZE) wallets, invoices, payments"},
		lastID: func(last int64) []string {
			// The sequence's next id is above every seeded one (its
			// horizon reads last_value + 1, migration 20261126000001).
			return []string{fmt.Sprintf("SELECT setval('events_id_seq', %d)", last)}
		},
	}.run(ctx, n, clients)
}

// seedSQLiteBooks writes n slots into the SQLite database at path.
func seedSQLiteBooks(ctx context.Context, path string, n, clients int) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_time_format=sqlite")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return seeder{
		db:        db,
		ph:        func(i int) string { return fmt.Sprintf("?%d", i) },
		statement: seedSQLite,
		lists: func(payers, payees, keys []string) []any {
			return []any{strings.Join(payers, ","), strings.Join(payees, ","), strings.Join(keys, ",")}
		},
		indexes: `SELECT name, sql FROM sqlite_master
  WHERE type = 'index' AND tbl_name IN ('invoices', 'payments') AND sql IS NOT NULL`,
		before: []string{"PRAGMA synchronous = OFF", "PRAGMA cache_size = -262144", "PRAGMA temp_store = MEMORY"},
		after:  []string{"ANALYZE", "PRAGMA wal_checkpoint(TRUNCATE)"},
		lastID: func(int64) []string { return nil }, // the next id is the largest, plus one
	}.run(ctx, n, clients)
}

// run writes the books: the indexes that no constraint needs are dropped
// while the rows go in, then made again from their definitions; the
// balances are set to what the rows add up to, and the outbox's consumers
// start after the seeded events, as on a server that ran all along.
func (s seeder) run(ctx context.Context, n, clients int) error {
	for _, q := range s.before {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	payers, payees, keys, err := participants(ctx, s.db, clients, s.ph)
	if err != nil {
		return err
	}
	defs, err := s.dropIndexes(ctx)
	if err != nil {
		return err
	}
	t0, step := seedClock(n)
	began := time.Now()
	for lo := 1; lo <= n; lo += seedChunk {
		hi := min(lo+seedChunk-1, n)
		args := append([]any{t0, step, lo, hi}, s.lists(payers, payees, keys)...)
		args = append(args, clients)
		for _, table := range []string{"invoices", "payments"} {
			if _, err := s.db.ExecContext(ctx, s.statement(table), args...); err != nil {
				return fmt.Errorf("seeding %s %d–%d: %w", table, lo, hi, err)
			}
		}
		fmt.Printf("    %d of %d slots in %s\n", hi, n, time.Since(began).Round(time.Second))
	}
	for _, def := range defs {
		if _, err := s.db.ExecContext(ctx, def); err != nil {
			return fmt.Errorf("making %s again: %w", def, err)
		}
	}
	fmt.Printf("    indexes made again in %s\n", time.Since(began).Round(time.Second))
	last := int64(4*n + 2)
	steps := append([]string{balancesFromRows, fmt.Sprintf("UPDATE event_cursors SET last_id = %d", last)}, s.lastID(last)...)
	for _, q := range append(steps, s.after...) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", strings.Fields(q)[0], err)
		}
	}
	return nil
}

// dropIndexes drops the books' indexes that no constraint makes and
// returns their definitions.
func (s seeder) dropIndexes(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.indexes)
	if err != nil {
		return nil, fmt.Errorf("listing indexes: %w", err)
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, err
		}
		names, defs = append(names, name), append(defs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := s.db.ExecContext(ctx, "DROP INDEX "+name); err != nil {
			return nil, fmt.Errorf("dropping %s: %w", name, err)
		}
	}
	return defs, nil
}

// balancesFromRows sets every wallet's balances to what its rows add up to,
// as the ledger's writes would have left them.
const balancesFromRows = `UPDATE wallets SET received_msat = s.received, sent_msat = s.sent, fees_paid_msat = s.fees,
  reserved_msat = s.reserved, available_msat = s.received - s.sent - s.fees - s.reserved
FROM (SELECT wallet_id, SUM(received) AS received, SUM(sent) AS sent, SUM(fees) AS fees, SUM(reserved) AS reserved
  FROM (SELECT wallet_id, COALESCE(amount_received_msat, 0) AS received, 0 AS sent, 0 AS fees, 0 AS reserved
          FROM invoices WHERE status = 'Settled'
        UNION ALL
        SELECT wallet_id, 0, CASE WHEN status = 'Settled' THEN amount_msat ELSE 0 END,
               CASE WHEN status = 'Settled' THEN COALESCE(fee_msat, 0) ELSE 0 END,
               CASE WHEN status = 'Pending' THEN reserved_msat ELSE 0 END
          FROM payments) AS u
  GROUP BY wallet_id) AS s
WHERE wallets.id = s.wallet_id`
