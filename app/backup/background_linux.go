package backup

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// backgroundNice is the niceness a backup's own work runs at: a server
// beside it, and the payments it makes, come first; alone, a backup runs
// as fast at 10 as at 0.
const backgroundNice = 10

// inBackground runs f on an operating system thread of its own whose
// priority is lowered to backgroundNice (Linux sets a priority per
// thread). f compresses and hashes the archive on that thread; goroutines
// it starts run on others. The thread is never given back to the Go
// runtime: it ends with f's goroutine, and its priority with it.
func inBackground(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked, on purpose
		// The kernel's getpriority is 20 - nice; a thread already nicer
		// (hearth backup run under nice -n 19) is left as it is.
		if p, err := unix.Getpriority(unix.PRIO_PROCESS, 0); err == nil && 20-p < backgroundNice {
			_ = unix.Setpriority(unix.PRIO_PROCESS, 0, backgroundNice) // lowering one's priority is always allowed
		}
		done <- f()
	}()
	return <-done
}
