package main

import (
	"os"
	"strconv"
	"syscall"
)

// backupNice is the niceness of `hearth backup`: what it does besides the
// database's own copy (hashing, compressing the archive) waits for the
// processors whenever the server it runs beside wants them.
const backupNice = 19

// lowerPriority gives every thread of this process backupNice. On Linux
// niceness belongs to a thread, and a thread inherits its creator's: the
// threads there now are changed (twice, for one made meanwhile), and the
// ones the runtime makes later, and the programs it starts, inherit it.
func lowerPriority() {
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return
		}
		for _, t := range tasks {
			if tid, err := strconv.Atoi(t.Name()); err == nil {
				syscall.Setpriority(syscall.PRIO_PROCESS, tid, backupNice) //nolint:errcheck // best effort: a thread may have ended
			}
		}
	}
}
