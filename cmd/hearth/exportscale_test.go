package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// exportRowsEnv, set to a number of rows, runs TestExportScale with that
// many payments (docs/performance.md: 1,000,000). Run it without -race:
// it measures. exportBinaryEnv, when set, is the hearth binary it serves
// with (make build's bin/hearth); else the test binary runs main().
const (
	exportRowsEnv   = "HEARTH_EXPORT_ROWS"
	exportBinaryEnv = "HEARTH_EXPORT_BINARY"
)

// TestExportScale seeds a wallet with n payments straight into the tables
// (SQLite and PostgreSQL in turn, not at once: it measures), starts
// `hearth serve` on them as a process of its own, and exports them over
// HTTP as CSV and as JSON Lines, twice each: it checks that every row
// arrives, in order, and logs the rate and the server's resident memory
// before, at its peak in the first tenth of the rows, at its peak over
// the whole export (VmRSS sampled every 10 ms), and its high-water mark
// (VmHWM).
func TestExportScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(exportRowsEnv))
	if n <= 0 {
		t.Skipf("set %s to a number of payments to measure an export of them", exportRowsEnv)
	}
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		exportScale(t, []string{"HEARTH_DATA_DIR=" + dir}, store.Options{SQLitePath: filepath.Join(dir, "hearth.db")}, n)
	})
	t.Run("postgres", func(t *testing.T) {
		url := storetest.EmptySchemaURL(t)
		exportScale(t, []string{"HEARTH_DATA_DIR=" + t.TempDir(), "HEARTH_DATABASE_URL=" + url}, store.Options{PostgresURL: url}, n)
	})
}

func exportScale(t *testing.T, environ []string, o store.Options, n int) {
	runHearth(t, environ, "migrate")
	began := time.Now()
	seedExport(t, o, n)
	t.Logf("seeded %d payments in %s", n, time.Since(began).Round(time.Millisecond))
	p, c := serveExporter(t, environ)
	token := signUp(t, c)
	pid := p.cmd.Process.Pid
	for _, format := range []string{"csv", "jsonl", "csv", "jsonl"} {
		before := procStatus(t, pid)
		s := &rssSampler{pid: pid}
		stop := s.run(t)
		at := time.Now()
		rows, size, tenth := readExport(t, c, token, format, n, s)
		elapsed := time.Since(at)
		stop()
		after := procStatus(t, pid)
		t.Logf("%s: %d rows, %d MB in %s: %.0f rows/s; server RSS %d MiB before, peak %d MiB in the first tenth, peak %d MiB over the export, VmHWM %d MiB (%d before)",
			format, rows, size/1e6, elapsed.Round(time.Millisecond), float64(rows)/elapsed.Seconds(),
			before["VmRSS"]>>10, tenth>>10, s.peak()>>10, after["VmHWM"]>>10, before["VmHWM"]>>10)
	}
}

// serveExporter starts `hearth serve` on a free port as serveProcess
// does, from the binary exportBinaryEnv names when it is set.
func serveExporter(t *testing.T, environ []string) (*process, *client) {
	bin := os.Getenv(exportBinaryEnv)
	if bin == "" {
		return serveProcess(t, environ)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), "HEARTH_LISTEN=127.0.0.1:0"), environ...)
	p := &process{t: t, cmd: cmd, out: newSyncWriter(), done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		p.err = cmd.Wait()
	}()
	t.Cleanup(p.kill)
	c := &client{t: t, base: p.waitFor(listeningRE)[1], http: &http.Client{Timeout: time.Minute}}
	t.Cleanup(c.http.CloseIdleConnections)
	return p, c
}

// seedExport writes the admin's wallet and n of its payments, one per
// millisecond of 2026, each with a description, a payment hash and
// preimage and a BOLT11 text of a real one's length.
func seedExport(t *testing.T, o store.Options, n int) {
	ctx := context.Background()
	db, err := store.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seq, at, id, hex := `generate_series(1, ?) AS g(n)`, `timestamptz '2026-01-01 00:00:00+00' + n * interval '1 millisecond'`,
		`'01900000-0000-7000-8000-' || lpad(to_hex(n), 12, '0')`, `lpad(to_hex(n), 64, '0')`
	if db.Dialect == store.SQLite {
		seq = `(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?) SELECT n FROM s) AS g`
		// As Go writes a time (modernc's _time_format=sqlite): no
		// trailing zeros in the fraction, else "…01.000+00:00" would sort
		// after "…01+00:00", the text a cursor compares it with.
		at = `strftime('%Y-%m-%d %H:%M:%S', '2026-01-01', '+' || (n / 1000) || ' seconds') ||
		      CASE WHEN n % 1000 = 0 THEN '' ELSE '.' || rtrim(printf('%03d', n % 1000), '0') END || '+00:00'`
		id, hex = `printf('01900000-0000-7000-8000-%012x', n)`, `printf('%064x', n)`
	}
	r := strings.NewReplacer("{seq}", seq, "{at}", at, "{id}", id, "{hex}", hex)
	if _, err := db.W.ExecContext(ctx, `INSERT INTO wallets (id, user_id, created_at) VALUES ('01900000-0000-7000-8000-ffffffffffff', 'admin', ?)`,
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	q := r.Replace(`INSERT INTO payments (id, wallet_id, amount_msat, fee_msat, status, ledger, description, payment_time,
	        payment_hash, payment_preimage, bolt11, created_at)
	 SELECT {id}, '01900000-0000-7000-8000-ffffffffffff', 1000 + n % 100000, 0, 'Settled', 'Internal', 'order ' || n, {at},
	        {hex}, {hex}, 'lnbcrt10n1' || {hex} || {hex} || {hex} || {hex}, {at}
	   FROM {seq}`)
	if _, err := db.W.ExecContext(ctx, q, n); err != nil {
		t.Fatalf("seeding: %v\n%s", err, q)
	}
	if db.Dialect == store.Postgres {
		if _, err := db.W.ExecContext(ctx, `ANALYZE wallets, payments`); err != nil {
			t.Fatal(err)
		}
	}
}

// readExport reads the admin's export of its wallet's payments line by
// line, checks that there are n rows (and a header in CSV) in the order
// seeded, and returns the rows, the bytes read and the sampler's peak
// when a tenth of the rows had arrived.
func readExport(t *testing.T, c *client, token, format string, n int, s *rssSampler) (rows int, size int64, tenth int64) {
	req, err := http.NewRequest("GET", c.base+"/v1/me/payments/export?format="+format, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := (&http.Client{}).Do(req) // no timeout: an export takes what it takes
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("export: %d", res.StatusCode)
	}
	body := &countingReader{r: res.Body}
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if format == "csv" && (!sc.Scan() || !strings.HasPrefix(sc.Text(), "id,")) {
		t.Fatalf("no header: %q", sc.Text())
	}
	for sc.Scan() {
		rows++
		line := sc.Bytes()
		if format == "jsonl" {
			line = bytes.TrimPrefix(line, []byte(`{"id":"`))
		}
		if want := fmt.Sprintf("01900000-0000-7000-8000-%012x", rows); !bytes.HasPrefix(line, []byte(want)) {
			t.Fatalf("row %d: %.60s, want %s first", rows, line, want)
		}
		if rows == n/10 {
			tenth = s.peak()
		}
	}
	if err := sc.Err(); err != nil || rows != n {
		t.Fatalf("read %d rows of %d: %v", rows, n, err)
	}
	return rows, body.n, tenth
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// rssSampler reads a process's resident memory every 10 ms.
type rssSampler struct {
	pid int
	mu  sync.Mutex
	max int64 // KiB
}

func (s *rssSampler) run(t *testing.T) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if v := procStatus(t, s.pid)["VmRSS"]; v > 0 {
				s.mu.Lock()
				s.max = max(s.max, v)
				s.mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func (s *rssSampler) peak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max
}

// procStatus reads the Vm* lines of /proc/<pid>/status, in KiB.
func procStatus(t *testing.T, pid int) map[string]int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Errorf("reading the server's memory: %v", err)
		return nil
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.HasPrefix(k, "Vm") {
			out[k], _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return out
}
