package outbox

import "testing"

// pg_stat_activity's 32-bit transaction ids take the epoch of the
// snapshot's full ids, on either side of an epoch's end.
func TestInEpochOf(t *testing.T) {
	const epoch = uint64(1) << 32
	for _, c := range []struct{ ref, x, want uint64 }{
		{5*epoch + 1000, 990, 5*epoch + 990},
		{5*epoch + 1000, 1010, 5*epoch + 1010},
		{5*epoch + 3, epoch - 7, 5*epoch - 7}, // a writer from the end of the last epoch
		{5*epoch - 7, 3, 5*epoch + 3},         // a writer of the next epoch
		{5*epoch + 100, 100 + 1<<31 - 1, 5*epoch + 100 + 1<<31 - 1},
	} {
		if got := inEpochOf(c.ref, c.x); got != c.want {
			t.Errorf("inEpochOf(%d, %d) = %d, want %d", c.ref, c.x, got, c.want)
		}
	}
}
