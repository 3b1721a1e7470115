package machine

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// A /proc/<pid>/stat line of a process whose name holds spaces and
// parentheses: pid 4242, state S, parent 17, utime 250, stime 30, cutime
// 7, cstime 3 (fields 14–17 of proc(5), [11]–[14] after the name).
const statLine = "4242 (hearth (serve) x) S 17 4242 4242 0 -1 4194560 1000 0 0 0 250 30 7 3 20 0 12 0 100 0 0\n"

func TestStatFields(t *testing.T) {
	f, err := statFields(statLine)
	if err != nil {
		t.Fatal(err)
	}
	if f[0] != "S" || f[1] != "17" {
		t.Errorf("state %q, parent %q; want S, 17", f[0], f[1])
	}
	if got, want := Ticks(f, 11, 12), 280*ClockTick; got != want {
		t.Errorf("own time %v, want %v", got, want)
	}
	if got, want := Ticks(f, 11, 12, 13, 14), 290*ClockTick; got != want {
		t.Errorf("time with the reaped children %v, want %v", got, want)
	}
	for _, bad := range []string{"4242 hearth S 17", "4242 (hearth) S 17 1 2 3"} {
		if _, err := statFields(bad); err == nil {
			t.Errorf("statFields(%q) took it", bad)
		}
	}
}

// TestProcStatOfThisProcess reads this process's own line: its parent is
// the one the system names, and a busy loop shows in its time, through
// getrusage and through /proc alike.
func TestProcStatOfThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	f, err := ProcStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if f[1] != strconv.Itoa(os.Getppid()) {
		t.Errorf("parent %s, want %d", f[1], os.Getppid())
	}
	if _, ok := Processes()[os.Getpid()]; !ok {
		t.Error("Processes does not list this process")
	}
	// Busy until the meter reads 100 ms spent (on a machine busy with other
	// work that takes longer than 100 ms); /proc, sampled by the tick, then
	// shows much of it too.
	before := Meter{}.Read()
	for deadline := time.Now().Add(10 * time.Second); ; {
		spent := Meter{}.Read().Sub(before)
		if spent.PG != 0 {
			t.Fatalf("PostgreSQL's time read without a PostgreSQL: %+v", spent)
		}
		if spent.Self >= 100*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s of busy loop read as %v of processor time", spent.Self)
		}
	}
	if got := ProcessCPU(os.Getpid()); got < 3*ClockTick {
		t.Errorf("/proc says this process used %v, after 100 ms of busy loop", got)
	}
	if _, err := ProcStat(-1); err == nil {
		t.Error("ProcStat(-1) read something")
	}
}

func TestPerPayment(t *testing.T) {
	r := Reading{Self: 2 * time.Second, PG: 500 * time.Millisecond}
	for _, tc := range []struct {
		n    int
		pg   bool
		want string
	}{{0, true, "-"}, {1000, false, "2000"}, {1000, true, "2000+500"}, {3, false, "666666"}} {
		if got := r.PerPayment(tc.n, tc.pg); got != tc.want {
			t.Errorf("PerPayment(%d, %v) = %q, want %q", tc.n, tc.pg, got, tc.want)
		}
	}
	if got := (Reading{Self: 5, PG: 9}).Sub(Reading{Self: 2, PG: 4}); got != (Reading{Self: 3, PG: 5}) {
		t.Errorf("Sub = %+v", got)
	}
}
