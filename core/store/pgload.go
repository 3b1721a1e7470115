package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// loadSplit restores a dump whose split tables' rows are beside it, in
// one transaction: psql reads, in order, pg_restore's script of the dump
// without the split tables' indexes and constraints, the rows of each
// table with a check of its count, then those indexes and constraints
// (made once, over all the rows, as pg_restore makes them). toc is the
// dump's list (pg_restore --list) of what to restore. Should anything fail
// before psql has read the whole script, psql is killed before it could
// read an end: nothing is committed.
func loadSplit(ctx context.Context, pgRestore string, env []string, toc, dump, schema string, clean bool, tables []TableCopy) error {
	psql, err := exec.LookPath("psql")
	if err != nil {
		return ErrNoPgDump
	}
	early, late := splitTOC(toc, schema, tables)
	lists := map[string]string{dump + ".early": early, dump + ".late": late}
	for name, list := range lists {
		if err := os.WriteFile(name, []byte(list), 0o600); err != nil {
			return fmt.Errorf("writing pg_restore's list: %w", err)
		}
		defer os.Remove(name)
	}
	cmd := exec.Command(psql, "--no-psqlrc", "--quiet", "--set=ON_ERROR_STOP=1", "--single-transaction", "--file=-")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	// A pipe of the system's, not exec's: pg_restore writes into it too.
	out, in, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("starting psql: %w", err)
	}
	defer in.Close()
	cmd.Stdin = out
	err = cmd.Start()
	out.Close()
	if err != nil {
		return fmt.Errorf("starting psql: %w", err)
	}
	s := script{ctx: ctx, w: in, pgRestore: pgRestore, env: env, dump: dump, schema: quoteIdent(schema)}
	if clean {
		s.dropDeferred(tables)
	}
	s.restore(dump+".early", clean)
	for _, t := range tables {
		s.rows(t)
	}
	// The indexes of millions of rows are sorted in memory rather than on
	// disk: PostgreSQL's default lends each build 64 MB. For this
	// transaction alone.
	s.printf("SET LOCAL maintenance_work_mem = '256MB';\n")
	s.restore(dump+".late", false)
	if s.err != nil {
		// Killed before it reads the end of its input: psql would commit
		// what it has at an end.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if msg := strings.TrimSpace(stderr.String()); msg != "" { // psql ended first, and says why
			return fmt.Errorf("restoring the database: %w; psql: %s", s.err, msg)
		}
		return fmt.Errorf("restoring the database: %w", s.err)
	}
	if err := errors.Join(in.Close(), cmd.Wait()); err != nil {
		return fmt.Errorf("psql: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// script writes psql's input; its first error stops it.
type script struct {
	ctx       context.Context
	w         *os.File
	pgRestore string
	env       []string
	dump      string
	schema    string // quoted
	err       error
}

func (s *script) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}

// dropDeferred drops the deferred indexes and constraints that exist,
// foreign keys first: pg_restore --clean drops the tables, which a
// foreign key left from another table would hold.
func (s *script) dropDeferred(tables []TableCopy) {
	for _, fk := range []bool{true, false} {
		for _, t := range tables {
			for _, d := range t.Deferred {
				switch {
				case d.Kind == "INDEX" && !fk:
					s.printf("DROP INDEX IF EXISTS %s.%s;\n", s.schema, quoteIdent(d.Name))
				case d.Kind != "INDEX" && (d.Kind == "FK CONSTRAINT") == fk:
					s.printf("ALTER TABLE IF EXISTS ONLY %s.%s DROP CONSTRAINT IF EXISTS %s;\n", s.schema, quoteIdent(d.Table), quoteIdent(d.Name))
				}
			}
		}
	}
}

// restore writes pg_restore's script of the items list names.
func (s *script) restore(list string, clean bool) {
	if s.err != nil {
		return
	}
	args := []string{"--no-owner", "--no-privileges", "--use-list=" + list, "--file=-"}
	if clean {
		args = append(args, "--clean", "--if-exists")
	}
	cmd := exec.CommandContext(s.ctx, s.pgRestore, append(args, s.dump)...)
	cmd.Env = append(os.Environ(), s.env...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = s.w, &stderr
	if err := cmd.Run(); err != nil {
		s.err = fmt.Errorf("pg_restore: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
}

// rows writes a COPY of t's rows, then a check that the table holds as
// many as the backup copied.
func (s *script) rows(t TableCopy) {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = quoteIdent(c)
	}
	table := s.schema + "." + quoteIdent(t.Name)
	s.printf("COPY %s (%s) FROM stdin;\n", table, strings.Join(cols, ", "))
	if s.err == nil {
		s.err = copyFile(s.w, t.Path)
	}
	s.printf("\\.\n")
	s.printf("DO $$BEGIN IF (SELECT count(*) FROM %s) <> %d THEN RAISE EXCEPTION 'table %s holds %%, the backup %d rows', (SELECT count(*) FROM %s); END IF; END$$;\n",
		table, t.Rows, t.Name, t.Rows, table)
}

// copyFile writes the file at path to w.
func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// splitTOC parts a dump's list into what goes before the split tables'
// rows and what after: their deferred indexes and constraints.
func splitTOC(toc, schema string, tables []TableCopy) (early, late string) {
	deferred := map[string]bool{}
	for _, t := range tables {
		for _, d := range t.Deferred {
			deferred[d.Kind+" "+schema+" "+d.Table+" "+d.Name] = true
		}
	}
	var e, l strings.Builder
	for _, line := range strings.SplitAfter(toc, "\n") {
		if deferred[tocItem(line)] {
			l.WriteString(line)
		} else {
			e.WriteString(line)
		}
	}
	return e.String(), l.String()
}

// tocItem is a list's line as "KIND schema table name" for an index (with
// no table) or a constraint; "" for any other.
// "4012; 1259 16450 INDEX public payments_created_idx hearth",
// "4013; 2606 16400 CONSTRAINT public payments payments_pkey hearth",
// "4014; 2606 16401 FK CONSTRAINT public payments payments_wallet_id_fkey hearth".
func tocItem(line string) string {
	f := strings.Fields(line)
	if len(f) < 6 || strings.HasPrefix(f[0], ";") {
		return ""
	}
	switch {
	case f[3] == "INDEX":
		return "INDEX " + f[4] + "  " + f[5]
	case f[3] == "CONSTRAINT" && len(f) >= 7:
		return "CONSTRAINT " + f[4] + " " + f[5] + " " + f[6]
	case f[3] == "FK" && len(f) >= 8 && f[4] == "CONSTRAINT":
		return "FK CONSTRAINT " + f[5] + " " + f[6] + " " + f[7]
	}
	return ""
}
