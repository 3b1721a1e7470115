package machine

import (
	"context"
	"fmt"
	"strconv"
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
