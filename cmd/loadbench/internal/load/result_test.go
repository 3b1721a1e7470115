package load

import (
	"testing"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

func TestResult(t *testing.T) {
	r := Result{Elapsed: 2 * time.Second, CPU: machine.Reading{Self: 300 * time.Millisecond, PG: 100 * time.Millisecond}}
	for i := range 400 {
		r.Latencies = append(r.Latencies, time.Duration(i+1)*time.Microsecond)
	}
	if got := r.Rate(); got != 200 {
		t.Errorf("400 payments in 2 s: %v/s, want 200", got)
	}
	if got := r.Percentile(50); got != 200*time.Microsecond {
		t.Errorf("p50 %v, want 200µs", got)
	}
	if got := r.Percentile(100); got != 400*time.Microsecond {
		t.Errorf("max %v, want 400µs", got)
	}
	if got := r.CPUPerPayment(); got != 0.001 {
		t.Errorf("CPU per payment %v s, want 0.001 (Hearth's and the database's)", got)
	}
	if got := (Result{}).CPUPerPayment(); got != 0 {
		t.Errorf("CPU per payment of none %v, want 0", got)
	}
}
