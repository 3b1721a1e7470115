//go:build !linux

package wasm

import (
	"errors"
	"time"
)

// lowestNice is the nice value of the threads that run guest code.
const lowestNice = 19

// lowerPriority does nothing outside Linux: setpriority there applies to
// the whole process, not one thread, so guest code keeps the priority of
// the process (and Go's scheduler alone shares the CPU, as without the
// executor).
func lowerPriority() error { return nil }

// threadNice is unknown outside Linux.
func threadNice() (int, error) { return 0, errors.New("thread priorities: Linux only") }

// threadCPUClock is unknown outside Linux: deadlines count wall time there.
func threadCPUClock() int32 { return 0 }

// cpuTime is unknown outside Linux.
func cpuTime(int32) (time.Duration, bool) { return 0, false }
