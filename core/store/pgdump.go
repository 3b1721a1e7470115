package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// ErrNoPgDump says that pg_dump, pg_restore or psql is not on the PATH: a
// backup of PostgreSQL needs PostgreSQL's client programs.
var ErrNoPgDump = errors.New("pg_dump, pg_restore or psql is not on the PATH: install PostgreSQL's client programs " +
	"(the server's major version or newer; on Debian the postgresql-client package) or put their folder on the PATH")

// copyPostgres dumps the current schema of the database at rawURL into dst
// with pg_dump, in the snapshot that facts reads. With split tables, their
// rows are copied beside dst instead (pgsplit.go); when that copy does not
// add up, it is made again in one snapshot.
func copyPostgres(ctx context.Context, rawURL, dst string, facts Facts, split Split) (Copy, error) {
	pgDump, err := exec.LookPath("pg_dump")
	if err != nil {
		return Copy{}, ErrNoPgDump
	}
	db, cfg, err := openPostgresConn(rawURL)
	if err != nil {
		return Copy{}, err
	}
	defer db.Close()
	conn, err := bun.NewDB(db, pgdialect.New()).Conn(ctx)
	if err != nil {
		return Copy{}, fmt.Errorf("connecting: %w", redact(err))
	}
	defer conn.Close()
	s := &splitCopy{split: split, bound: NoBound}
	if len(split.Tables) > 0 {
		if s.bound, err = settledBound(ctx, conn); err != nil {
			return Copy{}, err
		}
		if s.bound == NoBound {
			slog.Warn("copying the database in one snapshot: a transaction that writes events ran throughout the wait for a bound")
		}
	}
	c, err := dumpSnapshot(ctx, conn, pgDump, rawURL, cfg, dst, facts, s)
	if err == nil && s.bound != NoBound {
		if split.Between != nil {
			err = split.Between(ctx)
		}
		if err == nil {
			err = s.copyFinal(ctx, conn)
		}
		c.Tables, c.Rested = s.tables, s.rested
	}
	if err != nil {
		s.removeFiles()
	}
	if errors.Is(err, errSplitShort) {
		slog.Warn("copying the database in one snapshot instead", "why", err)
		if err := os.Remove(dst); err != nil {
			return Copy{}, fmt.Errorf("removing the split copy: %w", err)
		}
		return copyPostgres(ctx, rawURL, dst, facts, Split{})
	}
	return c, err
}

// dumpSnapshot runs pg_dump in the snapshot of a REPEATABLE READ
// transaction on conn, in which facts reads and s copies the split
// tables' live rows; pg_dump leaves their rows out.
func dumpSnapshot(ctx context.Context, conn bun.Conn, pgDump, rawURL string, cfg *pgx.ConnConfig, dst string, facts Facts, s *splitCopy) (Copy, error) {
	// The transaction stays open until pg_dump is done: its snapshot lives
	// as long as it does.
	if _, err := conn.ExecContext(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
		return Copy{}, fmt.Errorf("beginning the snapshot: %w", redact(err))
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // read only: nothing to keep; after COMMIT a no-op
	var snapshot string
	var schema sql.NullString
	if err := conn.QueryRowContext(ctx, "SELECT pg_export_snapshot(), current_schema()").Scan(&snapshot, &schema); err != nil {
		return Copy{}, fmt.Errorf("exporting the snapshot: %w", redact(err))
	}
	if !schema.Valid {
		return Copy{}, errors.New("the database URL selects no existing schema (search_path)")
	}
	c := Copy{Dialect: Postgres, Schema: schema.String}
	var err error
	if c.Version, err = appliedVersion(ctx, conn); err != nil {
		return Copy{}, err
	}
	if err := facts(ctx, conn); err != nil {
		return Copy{}, err
	}
	args := []string{"--format=custom", "--schema=" + quoteIdent(c.Schema), "--snapshot=" + snapshot,
		"--file=" + dst, "--dbname=" + cfg.Database}
	if s.bound != NoBound {
		if err := s.copyLive(ctx, conn, filepath.Dir(dst)); err != nil {
			return Copy{}, err
		}
		for _, t := range s.split.Tables {
			args = append(args, "--exclude-table-data="+quoteIdent(c.Schema)+"."+quoteIdent(t.Name))
		}
	}
	if err := runPg(ctx, pgDump, args, libpqEnv(rawURL, cfg)); err != nil {
		return Copy{}, fmt.Errorf("pg_dump: %w", err)
	}
	if err := os.Chmod(dst, 0o600); err != nil {
		return Copy{}, fmt.Errorf("making the dump private: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return Copy{}, fmt.Errorf("ending the snapshot: %w", redact(err))
	}
	return c, nil
}

// RestorePostgres loads dump, a pg_dump --format=custom of schema, into
// the database at rawURL with pg_restore, all of it in one transaction or
// nothing. When schema exists there already (public always does) its
// creation is left out of the dump's list. With clean, the dump's objects
// that exist are dropped first (pg_restore --clean --if-exists); objects
// that are not in the dump stay.
//
// tables are the rows of split tables, which the dump holds without them
// (CopyTo): they go in in the same transaction, through psql (pgload.go).
func RestorePostgres(ctx context.Context, rawURL, dump, schema string, clean bool, tables []TableCopy) error {
	pgRestore, err := exec.LookPath("pg_restore")
	if err != nil {
		return ErrNoPgDump
	}
	db, cfg, err := openPostgresConn(rawURL)
	if err != nil {
		return err
	}
	var exists bool
	var selected string
	err = db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1),
		coalesce(current_schema(), replace(btrim(split_part(current_setting('search_path'), ',', 1), ' "'), '$user', current_user))`,
		schema).Scan(&exists, &selected)
	db.Close()
	if err != nil {
		return fmt.Errorf("looking for schema %s: %w", schema, redact(err))
	}
	// pg_restore keeps the dump's schema: restored elsewhere than the
	// URL selects, the server would not find its tables.
	if selected != schema {
		return fmt.Errorf("the dump holds schema %s and the database URL selects %s: restore with a URL whose search_path is %s", schema, selected, schema)
	}
	env := libpqEnv(rawURL, cfg)
	var list, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, pgRestore, "--list", dump)
	cmd.Stdout, cmd.Stderr = &list, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pg_restore --list: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	listFile := dump + ".list"
	if err := os.WriteFile(listFile, []byte(tocWithout(list.String(), schema, exists)), 0o600); err != nil {
		return fmt.Errorf("writing pg_restore's list: %w", err)
	}
	defer os.Remove(listFile)
	args := []string{"--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
		"--use-list=" + listFile, "--dbname=" + cfg.Database}
	if clean {
		args = append(args, "--clean", "--if-exists")
	}
	if len(tables) > 0 {
		return loadSplit(ctx, pgRestore, env, tocWithout(list.String(), schema, exists), dump, schema, clean, tables)
	}
	if err := runPg(ctx, pgRestore, append(args, dump), env); err != nil {
		return fmt.Errorf("pg_restore: %w", err)
	}
	return nil
}

// tocWithout is pg_restore's list of a dump with the creation of schema
// (and its comment) left out when the schema exists.
func tocWithout(list, schema string, exists bool) string {
	if !exists {
		return list
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(list, "\n") {
		f := strings.Fields(line)
		// "4; 2615 2200 SCHEMA - public owner", "3349; 0 0 COMMENT - SCHEMA public owner"
		if len(f) >= 6 && !strings.HasPrefix(f[0], ";") &&
			((f[3] == "SCHEMA" && f[4] == "-" && f[5] == schema) ||
				(len(f) >= 7 && f[3] == "COMMENT" && f[4] == "-" && f[5] == "SCHEMA" && f[6] == schema)) {
			b.WriteString(";" + line)
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// openPostgresConn opens one connection's pool onto the database at rawURL.
func openPostgresConn(rawURL string) (*sql.DB, *pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing database URL: %w", redact(err))
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(1)
	return db, cfg, nil
}

// runPg runs one of PostgreSQL's client programs, the connection in its
// environment (never on its command line, where ps shows it), and returns
// its complaint as the error.
func runPg(ctx context.Context, path string, args, env []string) error {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// libpqEnv is the connection to the database of cfg in libpq's PG*
// variables: pgx's URL may carry parameters libpq refuses (search_path),
// and the password must not be on a command line. The ssl* parameters are
// taken as the URL spells them.
func libpqEnv(rawURL string, cfg *pgx.ConnConfig) []string {
	env := []string{"PGHOST=" + cfg.Host, "PGPORT=" + strconv.Itoa(int(cfg.Port)), "PGUSER=" + cfg.User,
		"PGDATABASE=" + cfg.Database, "PGPASSWORD=" + cfg.Password}
	params := map[string]string{}
	if u, err := url.Parse(rawURL); err == nil && u.Scheme != "" {
		for k, v := range u.Query() {
			params[k] = v[0]
		}
	} else {
		for _, kv := range strings.Fields(rawURL) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				params[k] = strings.Trim(v, "'")
			}
		}
	}
	for _, k := range []string{"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout"} {
		if v, ok := params[k]; ok {
			env = append(env, "PG"+strings.ToUpper(k)+"="+v)
		}
	}
	return env
}

// quoteIdent quotes a name for pg_dump's patterns, which read a quoted
// name exactly.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// readPostgres runs read in a read-only transaction on the database at
// rawURL and reports its current schema ("" when the URL selects none
// that exists).
func readPostgres(ctx context.Context, rawURL string, read Facts) (schema string, err error) {
	db, _, err := openPostgresConn(rawURL)
	if err != nil {
		return "", err
	}
	defer db.Close()
	bdb := bun.NewDB(db, pgdialect.New())
	tx, err := bdb.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return "", fmt.Errorf("reading the database: %w", redact(err))
	}
	defer tx.Rollback() //nolint:errcheck // read only
	var s sql.NullString
	if err := tx.QueryRowContext(ctx, "SELECT current_schema()").Scan(&s); err != nil {
		return "", fmt.Errorf("reading the current schema: %w", redact(err))
	}
	if read != nil {
		if err := read(ctx, tx); err != nil {
			return s.String, err
		}
	}
	return s.String, nil
}
