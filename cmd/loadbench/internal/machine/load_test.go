package machine

import "testing"

func TestModelName(t *testing.T) {
	cpuinfo := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t: fpu\n\nprocessor\t: 1\nmodel name\t: another\n"
	if got := modelName(cpuinfo); got != "Intel(R) Xeon(R) Processor" {
		t.Errorf("modelName = %q", got)
	}
	if got := modelName("processor\t: 0\nmodel\t: 85\n"); got != "" {
		t.Errorf("modelName without one = %q, want empty", got)
	}
}

func TestStatTicks(t *testing.T) {
	// user nice system idle iowait irq softirq steal
	stat := "cpu  100 5 50 1000 20 3 2 0 0 0\ncpu0 50 2 25 500 10 1 1 0 0 0\nintr 12345\n"
	busy, total := statTicks(stat)
	if busy != 160 || total != 1180 {
		t.Errorf("busy %d of %d, want 160 of 1180 (idle and iowait are not busy)", busy, total)
	}
	if busy, total := statTicks(""); busy != 0 || total != 0 {
		t.Errorf("empty: %d of %d", busy, total)
	}
}
