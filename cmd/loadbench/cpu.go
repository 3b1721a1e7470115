package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hearthwallet/hearth/core/store"
)

// cpuMeter reads the processor time spent by this process (Hearth and its
// clients) and by the local PostgreSQL server (every process of its
// cluster), so that a phase can say what each payment cost in CPU. Unlike
// payments per second, that figure holds on a machine busy with other work:
// it is what tells two builds apart while the machine is not quiet.
type cpuMeter struct {
	postmaster int // 0 when PostgreSQL is not local (or SQLite)
}

// cpuReading is the time spent so far.
type cpuReading struct {
	self, pg time.Duration
}

// clockTick is the unit of /proc/<pid>/stat's times (USER_HZ).
const clockTick = 10 * time.Millisecond

// newCPUMeter finds the PostgreSQL server of db through the process of its
// own connection; the server's processes are that process's siblings.
func newCPUMeter(ctx context.Context, db *store.DB) cpuMeter {
	if db.Dialect != store.Postgres {
		return cpuMeter{}
	}
	var backend int
	if err := db.W.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return cpuMeter{}
	}
	return backendMeter(backend)
}

// backendMeter measures the PostgreSQL server of the backend process
// backend: its parent, the postmaster.
func backendMeter(backend int) cpuMeter {
	f, err := procStat(backend)
	if err != nil {
		return cpuMeter{}
	}
	ppid, _ := strconv.Atoi(f[1])
	return cpuMeter{postmaster: ppid}
}

// read returns the time spent by this process, and by the PostgreSQL
// server: its postmaster, the children it reaped, and those still running.
func (m cpuMeter) read() cpuReading {
	var ru syscall.Rusage
	var r cpuReading
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		r.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if m.postmaster == 0 {
		return r
	}
	if f, err := procStat(m.postmaster); err == nil {
		r.pg += ticks(f, 11, 12, 13, 14)
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return r
	}
	parent := strconv.Itoa(m.postmaster)
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if f, err := procStat(pid); err == nil && f[1] == parent {
			r.pg += ticks(f, 11, 12)
		}
	}
	return r
}

// procStat returns the fields of /proc/<pid>/stat after the command name:
// [0] is the state, [1] the parent, [11] and [12] the user and system time,
// [13] and [14] those of the reaped children.
func procStat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	return f, nil
}

// ticks sums the fields at idx, in clock ticks.
func ticks(f []string, idx ...int) time.Duration {
	var sum time.Duration
	for _, i := range idx {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		sum += time.Duration(n) * clockTick
	}
	return sum
}

// perPayment formats the processor time of n payments: Hearth's, plus
// PostgreSQL's when it was measured, in µs a payment.
func (r cpuReading) perPayment(n int, pg bool) string {
	if n == 0 {
		return "-"
	}
	self := r.self.Microseconds() / int64(n)
	if !pg {
		return strconv.FormatInt(self, 10)
	}
	return fmt.Sprintf("%d+%d", self, r.pg.Microseconds()/int64(n))
}
