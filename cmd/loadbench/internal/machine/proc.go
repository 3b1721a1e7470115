package machine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

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
