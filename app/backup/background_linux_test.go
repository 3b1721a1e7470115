package backup

import (
	"testing"

	"golang.org/x/sys/unix"
)

// niceOfThread is the calling thread's niceness.
func niceOfThread(t *testing.T) int {
	t.Helper()
	p, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

// A backup's work runs at niceness 10 on a thread of its own; the
// caller's thread keeps its priority.
func TestBackupRunsInBackground(t *testing.T) {
	var inside int
	if err := inBackground(func() error { inside = niceOfThread(t); return nil }); err != nil {
		t.Fatal(err)
	}
	if inside != backgroundNice {
		t.Fatalf("the backup ran at niceness %d, want %d", inside, backgroundNice)
	}
	if outside := niceOfThread(t); outside == backgroundNice {
		t.Fatalf("the caller's thread is at niceness %d too", outside)
	}
}
