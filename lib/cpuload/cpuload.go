// Package cpuload reads how busy the machine's processors are, from
// Linux's /proc/stat: the server paces work that may wait (the event
// streams' deliveries) by it, and loadbench waits for a quiet machine.
package cpuload

import (
	"os"
	"strconv"
	"strings"
)

// Ticks are the machine's processor ticks so far: those busy, and all.
type Ticks struct{ Busy, Total int64 }

// Read reads the ticks of all processors; ok is false where /proc/stat
// cannot be read (not Linux).
func Read() (t Ticks, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Ticks{}, false
	}
	t = Parse(string(b))
	return t, t.Total > 0
}

// Parse sums the ticks of /proc/stat's first line, all processors' ("cpu
// user nice system idle iowait irq …"), and those busy: all but idle and
// iowait.
func Parse(stat string) Ticks {
	line, _, _ := strings.Cut(stat, "\n")
	fields := strings.Fields(line)
	var t Ticks
	if len(fields) == 0 {
		return t
	}
	for i, f := range fields[1:] {
		v, _ := strconv.ParseInt(f, 10, 64)
		t.Total += v
		if i != 3 && i != 4 { // idle, iowait
			t.Busy += v
		}
	}
	return t
}

// Since is the share of the processors' time that was busy from earlier
// to t; 0 when no tick passed.
func (t Ticks) Since(earlier Ticks) float64 {
	if t.Total <= earlier.Total {
		return 0
	}
	return float64(t.Busy-earlier.Busy) / float64(t.Total-earlier.Total)
}
