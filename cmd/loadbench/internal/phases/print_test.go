package phases

import (
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
)

// paid is a result of n payments in a second, each taking 1 to n ms.
func paid(name string, n int, fixed bool) load.Result {
	r := load.Result{Name: name, FixedRate: fixed, Elapsed: time.Second}
	for i := range n {
		r.Latencies = append(r.Latencies, time.Duration(i+1)*time.Millisecond)
	}
	return r
}

// fields is the line of out that starts with prefix, split into fields.
func fields(t *testing.T, out, prefix string) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return strings.Fields(strings.TrimPrefix(line, prefix))
		}
	}
	t.Fatalf("no line %q in:\n%s", prefix, out)
	return nil
}

// TestPrintRows: each phase's rate as a share of the bare database's, but
// none for the fixed-rate phase, whose rate is not a capacity; p50, p99
// and the maximum.
func TestPrintRows(t *testing.T) {
	var out strings.Builder
	printRows(&out, "sqlite", []load.Result{paid("bare database", 1000, false), paid("hearth over HTTP", 500, false), paid("hearth at 200/s", 200, true)})
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"sqlite     bare database", []string{"1000", "1000", "500ms", "990ms", "1s", "100%", "0"}},
		{"sqlite     hearth over HTTP", []string{"500", "500", "250ms", "495ms", "500ms", "50%", "0"}},
		{"sqlite     hearth at 200/s", []string{"200", "200", "100ms", "198ms", "200ms", "-", "0"}},
	} {
		if got := fields(t, out.String(), tc.prefix); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: %q, want %q", tc.prefix, got, tc.want)
		}
	}
	if !strings.HasPrefix(out.String(), "database   run ") || !strings.HasSuffix(out.String(), "\n\n") {
		t.Errorf("no heading, or no blank line after the rows:\n%s", out.String())
	}
}

// TestPrintReplicas: two replicas' rate as a share of the one replica's
// of its own pair, whichever ran first; with more than one pair, the
// medians and the median of the pairs' shares; nothing without rows.
func TestPrintReplicas(t *testing.T) {
	rep := func(n, rate int, deadlocks int64) replicaResult {
		return replicaResult{Result: paid("", rate, false), replicas: n, deadlocks: deadlocks}
	}
	var out strings.Builder
	printReplicas(&out, []replicaResult{rep(1, 100, 0), rep(2, 90, 3), rep(2, 132, 1), rep(1, 110, 0)})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want a heading, 4 rows and the medians:\n%s", len(lines), out.String())
	}
	for i, want := range [][]string{{"1", "100", "100", "100%", "0"}, {"2", "90", "90", "90%", "3"}, {"2", "132", "132", "120%", "1"}, {"1", "110", "110", "100%", "0"}} {
		f := strings.Fields(lines[i+1])
		if got := []string{f[1], f[2], f[3], f[7], f[8]}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("row %d: replicas, payments, rate, share, deadlocks %q, want %q", i+1, got, want)
		}
	}
	if want := "two replicas' share of one over 2 pairs: 106% (medians 111 and 105/s); the pairs' own shares' median 105%"; lines[5] != want {
		t.Errorf("medians:\n%s\nwant\n%s", lines[5], want)
	}
	out.Reset()
	printReplicas(&out, []replicaResult{rep(2, 90, 0), rep(1, 100, 0)})
	if strings.Contains(out.String(), "share of one over") || !strings.Contains(out.String(), "90%") {
		t.Errorf("one pair, two replicas first:\n%s", out.String())
	}
	out.Reset()
	if printReplicas(&out, nil); out.Len() != 0 {
		t.Errorf("no rows printed %q", out.String())
	}
}
