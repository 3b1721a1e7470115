package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lowerPriority gives every thread of the process the backup's niceness,
// and the threads made afterwards inherit it: checked in a process of its
// own (this test binary run again), since it cannot be undone.
func TestLowerPriorityNicesEveryThread(t *testing.T) {
	t.Parallel()
	if os.Getenv("HEARTH_TEST_NICE_CHILD") == "1" {
		lowerPriority()
		// Threads made after it: goroutines locked to threads of their own.
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
			}()
		}
		wg.Wait()
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			stat, err := os.ReadFile("/proc/self/task/" + task.Name() + "/stat")
			if err != nil {
				continue // ended meanwhile
			}
			// Fields after the command's closing parenthesis; niceness is
			// the 19th field of the line, the 17th after it.
			f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
			if nice, _ := strconv.Atoi(f[16]); nice != backupNice {
				t.Errorf("thread %s has niceness %d, want %d", task.Name(), nice, backupNice)
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLowerPriorityNicesEveryThread$", "-test.v")
	cmd.Env = append(os.Environ(), "HEARTH_TEST_NICE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("the child: %v\n%s", err, out)
	}
}
