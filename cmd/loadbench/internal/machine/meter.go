// Package machine reads what loadbench's figures need of the machine they
// run on, from /proc: the processor time spent by this process, by a
// local PostgreSQL server and by any other process, how busy the
// machine's processors are, its load average and its processor's name.
// Where /proc cannot be read the readings are zero, and the figures that
// rest on them say so ("-", "?") rather than fail the run.
package machine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearthwallet/hearth/core/store"
)

// Meter reads the processor time spent by this process (Hearth and its
// clients) and by the local PostgreSQL server (every process of its
// cluster), so that a phase can say what each payment cost in CPU. Unlike
// payments per second, that figure holds on a machine busy with other work:
// it is what tells two builds apart while the machine is not quiet. The
// zero Meter reads this process alone.
type Meter struct {
	postmaster int // 0 when PostgreSQL is not local (or SQLite)
}

// Reading is the processor time spent so far: by this process, and by
// the PostgreSQL server.
type Reading struct {
	Self, PG time.Duration
}

// NewMeter finds the PostgreSQL server of db through the process of its
// own connection; the server's processes are that process's siblings. On
// SQLite, or when that process is not on this machine, it measures this
// process alone.
func NewMeter(ctx context.Context, db *store.DB) Meter {
	if db.Dialect != store.Postgres {
		return Meter{}
	}
	var backend int
	if err := db.W.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return Meter{}
	}
	return backendMeter(backend)
}

// PostgresMeter measures the PostgreSQL server at pgURL, through the
// parent of its own connection's backend.
func PostgresMeter(ctx context.Context, pgURL string) Meter {
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return Meter{}
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return Meter{}
	}
	return backendMeter(backend)
}

// backendMeter measures the PostgreSQL server of the backend process
// backend: its parent, the postmaster.
func backendMeter(backend int) Meter {
	f, err := ProcStat(backend)
	if err != nil {
		return Meter{}
	}
	ppid, _ := strconv.Atoi(f[1])
	return Meter{postmaster: ppid}
}

// MeasuresPostgres reports whether m reads a PostgreSQL server's time.
func (m Meter) MeasuresPostgres() bool { return m.postmaster != 0 }

// Read returns the time spent by this process, and by the PostgreSQL
// server: its postmaster, the children it reaped, and those still running.
func (m Meter) Read() Reading {
	var ru syscall.Rusage
	var r Reading
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		r.Self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if m.postmaster == 0 {
		return r
	}
	if f, err := ProcStat(m.postmaster); err == nil {
		r.PG += Ticks(f, 11, 12, 13, 14)
	}
	parent := strconv.Itoa(m.postmaster)
	for _, f := range Processes() {
		if f[1] == parent {
			r.PG += Ticks(f, 11, 12)
		}
	}
	return r
}

// Sub returns the time spent between earlier and r.
func (r Reading) Sub(earlier Reading) Reading {
	return Reading{Self: r.Self - earlier.Self, PG: r.PG - earlier.PG}
}

// PerPayment formats the processor time of n payments: Hearth's, plus
// PostgreSQL's when it was measured (pg), in µs a payment ("-" for none).
func (r Reading) PerPayment(n int, pg bool) string {
	if n == 0 {
		return "-"
	}
	self := r.Self.Microseconds() / int64(n)
	if !pg {
		return strconv.FormatInt(self, 10)
	}
	return fmt.Sprintf("%d+%d", self, r.PG.Microseconds()/int64(n))
}

// ClockTick is the unit of /proc/<pid>/stat's times (USER_HZ).
const ClockTick = 10 * time.Millisecond

// ProcStat returns the fields of /proc/<pid>/stat after the command name:
// [0] is the state, [1] the parent, [11] and [12] the user and system time,
// [13] and [14] those of the reaped children.
func ProcStat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	f, err := statFields(string(b))
	if err != nil {
		return nil, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return f, nil
}

// statFields splits the text of a /proc/<pid>/stat after the command
// name, which is in parentheses and may hold spaces and parentheses of
// its own: the fields start after the last ')'.
func statFields(s string) ([]string, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, errors.New("no command name")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return nil, fmt.Errorf("%d fields", len(f))
	}
	return f, nil
}

// Ticks sums the fields of f (ProcStat's) at idx, read as clock ticks.
func Ticks(f []string, idx ...int) time.Duration {
	var sum time.Duration
	for _, i := range idx {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		sum += time.Duration(n) * ClockTick
	}
	return sum
}

// ProcessCPU returns the processor time process pid has used, its own
// (not its reaped children's); 0 when it cannot be read.
func ProcessCPU(pid int) time.Duration {
	f, err := ProcStat(pid)
	if err != nil {
		return 0
	}
	return Ticks(f, 11, 12)
}

// Processes returns ProcStat's fields of every process that could be
// read, by pid (none without /proc).
func Processes() map[int][]string {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	procs := make(map[int][]string, len(dirs))
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if f, err := ProcStat(pid); err == nil {
			procs[pid] = f
		}
	}
	return procs
}
