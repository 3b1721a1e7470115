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
