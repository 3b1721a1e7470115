package wasm

import (
	"context"
	"time"

	"github.com/hearthwallet/hearth/host"
)

// CallExport calls a plugin-specific export with one argument on a pooled
// instance, for benchmarks.
func CallExport(ctx context.Context, r host.Runner, name string, arg uint64) (uint64, error) {
	m := r.(*module)
	ctx, cancel := context.WithTimeout(ctx, m.timeout*10)
	defer cancel()
	in, err := m.get(ctx)
	if err != nil {
		return 0, err
	}
	in.state.parent, in.state.deadline = ctx, time.Now().Add(m.timeout*10)
	var res []uint64
	in.mem.hold()
	defer in.mem.release()
	if xerr := m.exec.run(func() { res, err = in.mod.ExportedFunction(name).Call(in.base, arg) }); xerr != nil {
		err = xerr
	}
	in.state.end()
	m.put(in, err == nil)
	if err != nil {
		return 0, err
	}
	return res[0], nil
}

// ThreadNice is the calling thread's nice value.
func ThreadNice() (int, error) { return threadNice() }

// LowestNice is the nice value of the threads that run guest code.
const LowestNice = lowestNice

// WatchHostCalls makes rt call watch, on the calling thread, at every host
// call before answering it; only for plugins loaded afterwards.
func WatchHostCalls(rt *Runtime, watch func(name string)) {
	rt.opts.Calls = watcher{rt.opts.Calls, watch}
}

type watcher struct {
	Dispatcher
	watch func(name string)
}

func (w watcher) Dispatch(ctx context.Context, p *host.Plugin, name string, req []byte) ([]byte, *host.CallError) {
	w.watch(name)
	return w.Dispatcher.Dispatch(ctx, p, name, req)
}

// Runner returns a plugin's runner, for benchmarks.
func Runner(p *host.Plugin) host.Runner { return host.RunnerOf(p) }

// NopLoop calls export name (i32 → i32) n times on one instance with a
// reused stack, for measuring the bare cost of entering the guest.
func NopLoop(r host.Runner, name string, n int) error {
	m := r.(*module)
	in, err := m.get(context.Background())
	if err != nil {
		return err
	}
	defer m.put(in, true)
	fn := in.mod.ExportedFunction(name)
	stack := []uint64{1}
	for range n {
		stack[0] = 1
		if err := fn.CallWithStack(in.base, stack); err != nil {
			return err
		}
	}
	return nil
}

// LowerPriority gives the calling thread the priority of guest code.
var LowerPriority = lowerPriority

// Kept tells whether rt keeps p's compiled module.
func Kept(rt *Runtime, p *host.Plugin) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	_, ok := rt.compiled[p]
	return ok
}
