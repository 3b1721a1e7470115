//go:build linux

package wasm

import (
	"fmt"
	"time"
	"unsafe"

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
	// SCHED_IDLE besides: the thread runs only on a CPU nothing else wants,
	// and any other thread waking up takes the CPU from it at once.
	attr := &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE, Nice: lowestNice}
	if err := unix.SchedSetAttr(0, attr, 0); err != nil {
		return fmt.Errorf("setting the thread's policy to SCHED_IDLE: %w", err)
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

// threadCPUClock returns the clock of the calling thread's CPU time, for
// reading from any thread: Linux's per-thread CPU clock of its id
// (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) of the kernel's headers).
func threadCPUClock() int32 { return ^int32(unix.Gettid())<<3 | 6 }

// cpuTime reads clock, a threadCPUClock; false if the thread is gone. A
// raw system call: it never blocks, and twice per plugin call the
// scheduler's bookkeeping around an ordinary one (unix.ClockGettime) cost
// a tenth of an event delivery.
func cpuTime(clock int32) (time.Duration, bool) {
	var ts unix.Timespec
	if _, _, errno := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, uintptr(clock), uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
