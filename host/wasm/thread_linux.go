//go:build linux

package wasm

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// lowestNice is the nice value of the threads that run guest code.
const lowestNice = 19

// lowerPriority gives the calling thread the lowest priority. On Linux,
// PRIO_PROCESS with a thread id sets that one thread only.
func lowerPriority() error {
	if err := unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), lowestNice); err != nil {
		return fmt.Errorf("setting the thread's nice to %d: %w", lowestNice, err)
	}
	return nil
}

// threadNice is the calling thread's nice value.
func threadNice() (int, error) {
	// The raw system call answers 20 - nice, from 1 to 40.
	p, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	if err != nil {
		return 0, fmt.Errorf("reading the thread's nice: %w", err)
	}
	return 20 - p, nil
}
