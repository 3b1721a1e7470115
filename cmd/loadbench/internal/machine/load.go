package machine

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/lib/cpuload"
)

// Model names the processor, for the record (GOARCH when /proc/cpuinfo
// does not say).
func Model() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	if m := modelName(string(b)); m != "" {
		return m
	}
	return runtime.GOARCH
}

// modelName is the first "model name" of cpuinfo's text, or "".
func modelName(cpuinfo string) string {
	for _, line := range strings.Split(cpuinfo, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// LoadAverage is the machine's load average, as uptime shows it ("?" when
// unknown).
func LoadAverage() string {
	f := loadFields()
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// LoadAverage1 is the one-minute load average (0 when unknown).
func LoadAverage1() float64 {
	f := loadFields()
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// loadFields are the fields of /proc/loadavg (none when it cannot be read).
func loadFields() []string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

// WaitQuiet waits until the machine's processors were busy less than
// max of their time over a second, for wait at most, and returns the load
// average it started at. The load average itself lags by a minute: a
// phase began while PostgreSQL's autovacuum of the tables the last one
// wrote still ran, or waited for the average of the last one to decay.
func WaitQuiet(max float64, wait time.Duration) float64 {
	deadline := time.Now().Add(wait)
	for wait > 0 && time.Now().Before(deadline) {
		if busyLastSecond() < max {
			break
		}
	}
	return LoadAverage1()
}

// busyLastSecond measures the share of the machine's processor time that
// was busy over the next second (/proc/stat; 0 when it cannot be read).
func busyLastSecond() float64 {
	t0, _ := cpuload.Read()
	time.Sleep(time.Second)
	t1, _ := cpuload.Read()
	return t1.Since(t0)
}
