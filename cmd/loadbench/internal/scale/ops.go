package scale

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/operator"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// backupPhases is how many phases are measured before a backup, and
// busyPhases how many at most while it runs, busyGap apart: a
// phase of 2,000 payments flat out takes about a second, and the phases
// are spread over the whole backup rather than its first seconds.
const (
	backupPhases = 3
	busyPhases   = 40
	busyGap      = 10 * time.Second
)

// hearthEnv runs hearth with args and env, and returns how long it took.
func (s *books) hearthEnv(ctx context.Context, env []string, args ...string) (time.Duration, error) {
	return s.hearthNice(ctx, env, 0, args...)
}

// hearthNice runs hearth as hearthEnv does, at niceness nice (nice -n)
// when it is not 0.
func (s *books) hearthNice(ctx context.Context, env []string, nice int, args ...string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, s.bin, args...)
	if nice != 0 {
		cmd = exec.CommandContext(ctx, "nice", append([]string{"-n", strconv.Itoa(nice), s.bin}, args...)...)
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Run()
	took := time.Since(began)
	if err != nil {
		return took, fmt.Errorf("hearth %s: %w: %s", strings.Join(args, " "), err, out.String())
	}
	if args[0] == "ledger" && !strings.Contains(out.String(), "ledger check: every wallet balances") {
		return took, fmt.Errorf("hearth %s: %s", strings.Join(args, " "), out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "the copy gave way") {
			fmt.Printf("  %s: hearth %s: %s\n", s.database, args[0], line)
		}
	}
	return took, nil
}

// open opens the books' database beside its server.
func (s *books) open() (*sql.DB, error) {
	if s.dbURL != "" {
		return sql.Open("pgx", s.dbURL)
	}
	return sql.Open("sqlite", "file:"+filepath.Join(s.dataDir, "hearth.db")+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
}

// sinceCheckpoint counts the payments that settled or failed after the
// ledger check's checkpoint.
func (s *books) sinceCheckpoint(ctx context.Context) (int, error) {
	db, err := s.open()
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM payments
  WHERE event_id > (SELECT through_event_id FROM ledger_checkpoint WHERE id = 1)`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting the payments after the checkpoint: %w", err)
	}
	return n, nil
}

// backup times `hearth backup` of the books into path, and its size.
func (s *books) backup(ctx context.Context, f *figures, path string) error {
	var err error
	if f.backup, err = s.hearth(ctx, "backup", "--to", path); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	f.backupBytes = fi.Size()
	fmt.Printf("  %s: backup %s, %.0f MB\n", s.database, f.backup.Round(time.Millisecond), float64(f.backupBytes)/1e6)
	return nil
}

// restoreInPlace times `hearth restore` of the backup at path into the
// books' own database and data directory, emptied first (a copy beside
// them would need their size again on the disk: 30 GB at 10,000,000). The
// restore gives the books back; until it has, they count as gone, and a
// failure leaves them to be seeded again.
func (s *books) restoreInPlace(ctx context.Context, f *figures, path, pgURL string) error {
	if err := os.Remove(s.statePath()); err != nil {
		return err
	}
	if err := os.RemoveAll(s.dataDir); err != nil {
		return err
	}
	if err := os.MkdirAll(s.dataDir, 0o700); err != nil {
		return err
	}
	if s.dbURL != "" {
		if _, _, err := hearthbin.FreshDatabase(ctx, pgURL, s.name); err != nil {
			return err
		}
	}
	var err error
	if f.restore, err = s.hearth(ctx, "restore", "--from", path); err != nil {
		return err
	}
	fmt.Printf("  %s: restored in %s\n", s.database, f.restore.Round(time.Millisecond))
	return s.saveState()
}

// backupRates measures the payment rate of l's clients clients in phases
// of per payments: a few before a backup of the books, then, busyGap
// apart, as many as end while `hearth backup` runs (at niceness nice).
func (s *books) backupRates(ctx context.Context, l *operator.Load, clients int, f *figures, per, nice int) error {
	var quiet []float64
	for i := range backupPhases {
		r, err := l.Phase(fmt.Sprintf("before a backup %d", i+1), 0, per/clients, 0)
		if err != nil {
			return err
		}
		quiet = append(quiet, r.Rate())
	}
	f.quietRate = stats.Median(quiet)
	path := s.backupPath("busy")
	defer os.Remove(path)
	defer os.Remove(path + ".sha256")
	done := make(chan error, 1)
	began := time.Now()
	go func() {
		_, err := s.hearthNice(ctx, s.env(), nice, "backup", "--to", path)
		f.backupBusy = time.Since(began)
		done <- err
	}()
	var busy []float64
	var backupErr error
	running := true
	for i := 0; running && i < busyPhases; i++ {
		r, err := l.Phase(fmt.Sprintf("during a backup %d", i+1), 0, per/clients, 0)
		if err != nil {
			return err
		}
		select {
		case backupErr = <-done: // ended during the phase: the phase is not counted
			running = false
			continue
		default:
			busy = append(busy, r.Rate())
		}
		select {
		case backupErr = <-done:
			running = false
		case <-time.After(busyGap):
		}
	}
	if running {
		backupErr = <-done
	}
	if backupErr != nil {
		return backupErr
	}
	if len(busy) == 0 {
		return fmt.Errorf("the backup (%s) ended before a phase of %d payments did: measure with smaller phases", f.backupBusy, per)
	}
	f.backupRate = stats.Median(busy)
	fmt.Printf("  %s: payments/s before a backup %.0f (%s), during one %.0f (%s; the backup took %s)\n",
		s.database, f.quietRate, stats.JoinFigures(quiet), f.backupRate, stats.JoinFigures(busy), f.backupBusy.Round(time.Millisecond))
	return nil
}
