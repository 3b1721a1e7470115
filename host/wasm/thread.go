package wasm

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime"
	"sync"
)

// Guest code runs on OS threads of the lowest priority (SCHED_IDLE and nice
// 19 on Linux). Go's scheduler has no priorities, and compiled WebAssembly
// is not preempted: a plugin looping until its deadline would hold a P, a
// whole CPU's share of the goroutines, for all that time, and payments
// would queue behind it. On a thread of its own with the lowest priority,
// the kernel arbitrates instead and runs the plugin only when the payments
// leave a CPU idle. Two things make that work:
//
//   - every guest call runs on such a thread: the plugin's event worker is
//     one itself (Pin, so an event costs no hand-off), and any other call
//     (an HTTP route, a test export) is handed to the executor's threads;
//   - Go gets two more Ps per thread that may run WebAssembly at once
//     (reserveProcs): one that such a thread holds even while the kernel
//     keeps it waiting, so payments keep as many Ps as CPUs, and a spare.
//
// A thread whose priority was lowered never returns to the threads that run
// ordinary goroutines: its goroutine stays locked to it for good, and when
// that goroutine ends, the thread ends with it.

// errClosed is a call after Close.
var errClosed = errors.New("plugin runtime closed")

// procs0 is GOMAXPROCS as the process started: the CPUs Go would use (the
// environment variable, the container's CPU limit, or every CPU).
var procs0 = runtime.GOMAXPROCS(0)

// reserveProcs raises GOMAXPROCS to procs0 plus twice the n threads that
// may run WebAssembly at once, unless the operator set the GOMAXPROCS
// environment variable. The first n are the Ps those threads hold, never
// taken from payments. The other n are spares: a P handed to a plugin thread
// keeps the goroutines queued on it, which wait until the guest call ends
// unless an idle P steals them, and a spare is usually idle. (Two hostile
// plugins at once raised the payment p99 by some 40 % without the spares,
// some 15 % with them.)
func reserveProcs(n int) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if want := procs0 + 2*n; runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

// executor runs guest calls on a fixed set of goroutines, each locked to an
// OS thread of the lowest priority.
type executor struct {
	jobs chan func()
	quit chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// newExecutor starts n threads, of the lowest priority when lower is set.
func newExecutor(n int, lower bool, log *slog.Logger) *executor {
	x := &executor{jobs: make(chan func()), quit: make(chan struct{})}
	x.wg.Add(n)
	for range n {
		go x.work(lower, log)
	}
	return x
}

func (x *executor) work(lower bool, log *slog.Logger) {
	defer x.wg.Done()
	if !lower {
		runtime.LockOSThread()
	} else if err := lowerThread(); err != nil {
		log.Warn("plugin thread keeps its priority", "err", err)
	}
	for {
		select {
		case fn := <-x.jobs:
			fn()
		case <-x.quit:
			return
		}
	}
}

// run runs fn on one of the executor's threads and waits for it.
func (x *executor) run(fn func()) error {
	done := make(chan struct{})
	select {
	case x.jobs <- func() { defer close(done); fn() }:
	case <-x.quit:
		return errClosed
	}
	<-done
	return nil
}

// close ends the threads once their calls are done.
func (x *executor) close() {
	x.once.Do(func() { close(x.quit) })
	x.wg.Wait()
}

// pinnedKey marks the context of a goroutine that Pin locked to a thread
// of the lowest priority.
type pinnedKey struct{}

// Pin locks the calling goroutine to its OS thread for good, lowers the
// thread's priority to the lowest (unless Options.NormalPriority), and returns ctx marked so that the guest
// calls made with it run right there, without a hand-off to the executor.
// The registry calls it first on each plugin's event worker (host.Pinner).
// The context must stay on that goroutine.
func (rt *Runtime) Pin(ctx context.Context) context.Context {
	if rt.opts.NormalPriority {
		runtime.LockOSThread()
	} else if err := lowerThread(); err != nil {
		rt.opts.Log.WarnContext(ctx, "plugin event worker keeps its priority", "err", err)
	}
	return context.WithValue(ctx, pinnedKey{}, true)
}

// pinned tells whether ctx is a pinned goroutine's.
func pinned(ctx context.Context) bool {
	v, _ := ctx.Value(pinnedKey{}).(bool)
	return v
}

// lowerThread locks the calling goroutine to its OS thread and lowers the
// thread's priority (see the files of each platform). It never unlocks.
func lowerThread() error {
	runtime.LockOSThread()
	return lowerPriority()
}
