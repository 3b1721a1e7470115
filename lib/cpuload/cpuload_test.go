package cpuload

import "testing"

func TestParse(t *testing.T) {
	// user nice system idle iowait irq softirq steal
	stat := "cpu  100 5 50 1000 20 3 2 0 0 0\ncpu0 50 2 25 500 10 1 1 0 0 0\nintr 12345\n"
	if got := Parse(stat); got != (Ticks{Busy: 160, Total: 1180}) {
		t.Errorf("%+v, want 160 of 1180 busy (idle and iowait are not)", got)
	}
	if got := Parse(""); got != (Ticks{}) {
		t.Errorf("empty: %+v", got)
	}
	later := Ticks{Busy: 160 + 90, Total: 1180 + 100}
	if got := later.Since(Parse(stat)); got != 0.9 {
		t.Errorf("busy share %v, want 0.9", got)
	}
	if got := Parse(stat).Since(later); got != 0 {
		t.Errorf("busy share backwards %v, want 0", got)
	}
}
