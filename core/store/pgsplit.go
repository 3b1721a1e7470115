package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// A copy of PostgreSQL in one snapshot holds the database's cleanup
// horizon for as long as it reads: every row the server updates meanwhile
// keeps all its old versions, and each later lookup of that row walks
// them. At 10,000,000 payments pg_dump read for ten minutes, and the
// payments made during it fell to a fifth of their rate, ever slower as
// the wallets' rows piled up versions (docs/performance.md).
//
// So a large table whose rows become final is split. Its rows that may
// still change, and the small tables whole, are read in one short
// snapshot; its final rows are read after that snapshot has ended, in
// chunks of event ids, each chunk one statement with a snapshot of its
// own. The snapshot is taken with the events' bound (ReadSettled's): every
// row with an event id up to the bound is in it, and every row that
// changes later takes an id above it. A row that is final with an id up to
// the bound therefore is, when its chunk is read, what it was in the
// snapshot; the snapshot copies every other row. The rows copied are
// counted against the table's count in the snapshot: a row that neither
// part selects (one written without an event id) makes the copy fall back
// to one snapshot for everything.

// SplitTable is a large table whose final rows a PostgreSQL copy reads
// after its snapshot. Its queries read the table as t, select cols (the
// table's columns, t-qualified) and must select disjoint rows that
// together are the whole table as the snapshot holds it.
type SplitTable struct {
	Name string
	// Live selects, in the snapshot, the rows not selected by Final up to
	// bound.
	Live func(cols string, bound int64) string
	// Final selects the final rows with event ids in (from, to].
	Final func(cols string, from, to int64) string
}

// Split says which tables a PostgreSQL copy splits.
type Split struct {
	Tables []SplitTable
	// Chunk is how many event ids one read of final rows spans.
	Chunk int64
	// Between, when set, runs once the snapshot has ended and before the
	// final rows are read (a test writes there).
	Between func(ctx context.Context) error
}

// TableCopy is a split table's rows, in PostgreSQL's COPY text format,
// in a file beside the dump (which holds the table without its rows).
type TableCopy struct {
	Name    string   `json:"table"`
	Columns []string `json:"columns"`
	Path    string   `json:"-"`
	Rows    int64    `json:"rows"`
	// Deferred are the table's indexes and constraints (and the foreign
	// keys that name it), which a restore makes after the rows are in.
	Deferred []Deferred `json:"deferred,omitempty"`
}

// Deferred is an index or a constraint a restore makes once a split
// table's rows are in, as pg_restore's list names it.
type Deferred struct {
	Kind  string `json:"kind"`            // INDEX, CONSTRAINT or FK CONSTRAINT
	Table string `json:"table,omitempty"` // a constraint's table
	Name  string `json:"name"`
}

// errSplitShort says the split copy missed rows, or copied some twice.
var errSplitShort = errors.New("the split copy does not add up to the snapshot's rows")

// splitCopy is a split copy under way: its files and the snapshot's
// counts.
type splitCopy struct {
	split  Split
	bound  int64
	tables []TableCopy
	want   []int64 // each table's rows in the snapshot
	rested time.Duration

	// The database's commits at countedAt, and the copy's own since.
	countedAt     time.Time
	commits, ours int64
	busy          bool // others committed more than busyCommits a second
}

// copyLive writes, inside the snapshot conn reads, each split table's
// live rows into its file in dir, and counts its rows.
func (s *splitCopy) copyLive(ctx context.Context, conn bun.Conn, dir string) error {
	for _, t := range s.split.Tables {
		c := TableCopy{Name: t.Name, Path: filepath.Join(dir, "database."+t.Name+".copy")}
		if err := conn.NewSelect().ColumnExpr("column_name").TableExpr("information_schema.columns").
			Where("table_schema = current_schema()").Where("table_name = ?", t.Name).
			OrderExpr("ordinal_position").Scan(ctx, &c.Columns); err != nil {
			return fmt.Errorf("reading the columns of %s: %w", t.Name, redact(err))
		}
		var n int64
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(t.Name)).Scan(&n); err != nil {
			return fmt.Errorf("counting %s: %w", t.Name, redact(err))
		}
		if err := conn.NewRaw(deferredQuery, t.Name).Scan(ctx, &c.Deferred); err != nil {
			return fmt.Errorf("reading the indexes of %s: %w", t.Name, redact(err))
		}
		s.want = append(s.want, n)
		s.tables = append(s.tables, c)
		if err := s.copyRows(ctx, conn, len(s.tables)-1, t.Live(s.cols(c), s.bound)); err != nil {
			return err
		}
	}
	return nil
}

// deferredQuery lists a table's indexes that back no constraint, its
// constraints with an index, and the foreign keys from it or to it.
const deferredQuery = `SELECT 'INDEX' AS kind, '' AS "table", c.relname AS name
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.indrelid = to_regclass(quote_ident(?0))
   AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
UNION ALL
SELECT CASE k.contype WHEN 'f' THEN 'FK CONSTRAINT' ELSE 'CONSTRAINT' END, r.relname, k.conname
  FROM pg_constraint k JOIN pg_class r ON r.oid = k.conrelid
 WHERE k.contype IN ('p', 'u', 'x', 'f')
   AND (k.conrelid = to_regclass(quote_ident(?0)) OR k.confrelid = to_regclass(quote_ident(?0)))`

// busyPause is how long the final rows' copy rests after each chunk, in
// multiples of the time the chunk took, while the database runs other
// work: the server's backend that reads a chunk cannot be given a lower
// priority, nor its reads of the disk, so the copy gives way by resting,
// three quarters of the time. Alone, it does not rest.
const busyPause = 3

// busyCommits is the rate of other sessions' commits above which the
// database is busy.
const busyCommits = 20

// copyFinal appends each split table's final rows to its file, a chunk
// of event ids at a time, each chunk in a snapshot of its own, and checks
// the counts.
func (s *splitCopy) copyFinal(ctx context.Context, conn bun.Conn) error {
	for i, t := range s.split.Tables {
		for from := int64(0); from < s.bound; from += s.split.Chunk {
			to := min(from+s.split.Chunk, s.bound)
			began := time.Now()
			if err := s.copyRows(ctx, conn, i, t.Final(s.cols(s.tables[i]), from, to)); err != nil {
				return err
			}
			if err := s.giveWay(ctx, conn, time.Since(began)); err != nil {
				return err
			}
		}
		if s.tables[i].Rows != s.want[i] {
			return fmt.Errorf("%w: %s has %d rows in the snapshot, %d were copied", errSplitShort, t.Name, s.want[i], s.tables[i].Rows)
		}
	}
	return nil
}

// giveWay rests busyPause times took while the database is busy: when
// another session is inside a transaction as the chunk ends, or other
// sessions committed more than busyCommits a second since the last
// reading of the database's counters (a second or more ago: PostgreSQL
// publishes them about once a second).
func (s *splitCopy) giveWay(ctx context.Context, conn bun.Conn, took time.Duration) error {
	var others, commits int64
	if err := conn.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND xact_start IS NOT NULL
		    AND backend_type = 'client backend' AND pid <> pg_backend_pid()),
		(SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())`).Scan(&others, &commits); err != nil {
		return fmt.Errorf("reading the database's activity: %w", redact(err))
	}
	s.ours += 2 // the chunk and this reading
	if now := time.Now(); now.Sub(s.countedAt) >= time.Second {
		if !s.countedAt.IsZero() {
			rate := float64(commits-s.commits-s.ours) / now.Sub(s.countedAt).Seconds()
			s.busy = rate > busyCommits
		}
		s.countedAt, s.commits, s.ours = now, commits, 0
	}
	if others == 0 && !s.busy {
		return nil
	}
	s.rested += busyPause * took
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(busyPause * took):
		return nil
	}
}

// cols is c's columns, qualified by t.
func (s *splitCopy) cols(c TableCopy) string {
	q := make([]string, len(c.Columns))
	for i, name := range c.Columns {
		q[i] = "t." + quoteIdent(name)
	}
	return strings.Join(q, ", ")
}

// copyRows appends what query selects to table i's file, in COPY's text
// format.
func (s *splitCopy) copyRows(ctx context.Context, conn bun.Conn, i int, query string) error {
	c := &s.tables[i]
	f, err := os.OpenFile(c.Path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("writing the rows of %s: %w", c.Name, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = conn.Raw(func(dc any) error {
		tag, err := dc.(*stdlib.Conn).Conn().PgConn().CopyTo(ctx, w, "COPY ("+query+") TO STDOUT")
		c.Rows += tag.RowsAffected()
		return err
	})
	if err != nil {
		f.Close()
		return fmt.Errorf("copying the rows of %s: %w", c.Name, redact(err))
	}
	// Synced chunk by chunk: gigabytes of the copy left dirty in the page
	// cache would be written back all at once, and every commit's sync of
	// the database's log on the same disk would wait behind them.
	if err := errors.Join(w.Flush(), f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("writing the rows of %s: %w", c.Name, err)
	}
	return nil
}

// removeFiles removes what the split copy wrote.
func (s *splitCopy) removeFiles() {
	for _, c := range s.tables {
		os.Remove(c.Path)
	}
}
