package wasm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// maxAnswer bounds what a guest export may answer.
const maxAnswer = 4 << 20

// module is one loaded plugin: its runtime, compiled code and instance pool.
type module struct {
	plugin   *host.Plugin
	runtime  wazero.Runtime
	compiled wazero.CompiledModule
	timeout  time.Duration
	idle     chan *instance // warm instances
	slots    chan struct{}  // one token per live instance: the pool bound
	running  chan struct{}  // the runtime's bound on calls running at once
	exec     *executor      // the runtime's threads of lowest priority
	share    *cpuShare      // the plugin's, kept by the runtime
	log      *slog.Logger
	obs      *metrics.PluginCalls // nil with metrics off

	mu     sync.Mutex
	live   map[*instance]struct{} // every open instance, idle or busy
	closed bool                   // Close was called: no instance is kept or started
}

// instance is one instantiated module; it serves one call at a time.
type instance struct {
	mod   api.Module
	alloc api.Function
	event api.Function
	http  api.Function
	state callState
	stack [2]uint64
	// base is the context calls run under: it carries state, and the
	// deadline timer cancels it. wazero (WithCloseOnContextDone) watches it
	// during each call and stops the guest at its next check; resources are
	// released by the calling goroutine once the guest has left, never
	// under a guest still inside a host function. A cancelled base is never
	// used again: the instance is discarded.
	base   context.Context
	cancel context.CancelFunc
	timer  *time.Timer
	// dl is the deadline of the call in progress, which the timer checks.
	dl deadline
	// buf and bufCap are the guest's payload buffer, from hearth_alloc;
	// it is asked again only for a larger payload.
	buf, bufCap uint32
	// mem is the guest's memory, mapped outside the Go heap (nil where it
	// could not be): held during each call, so that the deadline's Close
	// leaves it mapped until the guest is out.
	mem *guestMemory
}

func (m *module) instantiate(ctx context.Context) (*instance, error) {
	// A start is bounded as a call is (instance.start): by its thread's
	// CPU time, and by wallFactor times that in wall time, so that a
	// thread of the lowest priority which a busy machine leaves waiting
	// does not fail the plugin.
	limit := max(m.timeout, 5*time.Second)
	ctx, cancel := context.WithTimeout(ctx, wallFactor*limit)
	defer cancel()
	spent := watchCPU(cancel, limit)
	defer spent.end()
	var mem *guestMemory
	mod, err := m.runtime.InstantiateModule(experimental.WithMemoryAllocator(ctx, newAllocator(&mem)), m.compiled, moduleConfig())
	if err != nil {
		if spent.expired() {
			return nil, host.Faultf("starting an instance: deadline exceeded")
		}
		return nil, classify(ctx, "starting an instance", err)
	}
	in := &instance{
		mem:   mem,
		mod:   mod,
		alloc: mod.ExportedFunction(exportAlloc),
		event: mod.ExportedFunction(exportEvent),
		http:  mod.ExportedFunction(exportHTTP),
	}
	in.base, in.cancel = context.WithCancel(context.WithValue(context.Background(), stateKey{}, &in.state))
	in.timer = time.AfterFunc(time.Hour, in.check)
	in.timer.Stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		in.close()
		return nil, host.ErrUnavailable
	}
	m.live[in] = struct{}{}
	return in, nil
}

// close closes the instance's module and its context.
func (in *instance) close() {
	in.mod.Close(context.Background()) //nolint:errcheck // closing wazero's own resources
	in.cancel()
}

// deadline is a call's limit: timeout of CPU time on the thread running
// it, and at most wallFactor times that in wall time. Guest code runs on
// threads of the lowest priority, which the kernel keeps waiting while
// payments want the CPU: a wall-clock limit would fail an honest plugin for
// the server's load, and a looping one burns CPU time all the same. Where
// a thread's CPU time cannot be read (outside Linux), it is wall time.
type deadline struct {
	mu       sync.Mutex
	running  bool
	expired  bool
	timeout  time.Duration
	cpu      cpuMeter  // the thread's CPU time since the call began
	hardStop time.Time // the wall-clock bound
}

// wallFactor bounds a call in wall time, as a multiple of its timeout.
const wallFactor = 10

// start begins a call on the calling thread, limited to timeout of CPU
// time counted from cpu, and to wallFactor times the instance's timeout in
// wall time from now.
func (in *instance) start(cpu cpuMeter, timeout, wall time.Duration) {
	d := &in.dl
	d.mu.Lock()
	d.running, d.expired, d.timeout = true, false, timeout
	d.cpu = cpu
	d.hardStop = time.Now().Add(wallFactor * wall)
	d.mu.Unlock()
	// Wall time runs at least as fast as CPU time: check sets it again.
	in.timer.Reset(timeout)
}

// stop ends the call and says whether it ran past its deadline.
func (in *instance) stop() (expired bool) {
	in.timer.Stop()
	d := &in.dl
	d.mu.Lock()
	defer d.mu.Unlock()
	d.running = false
	return d.expired
}

// check runs when the timer fires: it stops the guest if the call has used
// its CPU time or its wall-clock bound, else sets the timer again for what
// is left.
func (in *instance) check() {
	d := &in.dl
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.running || d.expired {
		return
	}
	left := min(d.timeout-d.cpu.used(), time.Until(d.hardStop))
	if left > 0 {
		in.timer.Reset(max(left, time.Millisecond))
		return
	}
	d.expired = true
	in.cancel()
}

// get takes a warm instance, or starts one while under the bound, or waits.
func (m *module) get(ctx context.Context) (*instance, error) {
	select {
	case in := <-m.idle:
		return in, nil
	default:
	}
	select {
	case in := <-m.idle:
		return in, nil
	case m.slots <- struct{}{}:
		in, err := m.instantiate(ctx)
		if err != nil {
			<-m.slots
			return nil, err
		}
		return in, nil
	case <-ctx.Done():
		return nil, host.Faultf("no instance free before the deadline")
	}
}

// put returns a healthy instance to the pool, or closes a broken one or
// any once the module is closed.
func (m *module) put(in *instance, healthy bool) {
	m.mu.Lock()
	if healthy && !m.closed {
		in.state.pending = nil
		m.idle <- in // never blocks: one slot per live instance
		m.mu.Unlock()
		return
	}
	delete(m.live, in)
	m.mu.Unlock()
	in.close()
	<-m.slots
}

// Event delivers one JSON event.
func (m *module) Event(ctx context.Context, payload []byte) (err error) {
	if m.obs != nil {
		defer m.observe(ctx, metrics.CallEvent, time.Now(), &err)
	}
	out, err := m.call(ctx, exportEvent, payload)
	if err != nil {
		return err
	}
	return answerError(out)
}

// HTTP serves one JSON request.
func (m *module) HTTP(ctx context.Context, payload []byte) (_ []byte, err error) {
	if m.obs != nil {
		defer m.observe(ctx, metrics.CallHTTP, time.Now(), &err)
	}
	out, err := m.call(ctx, exportHTTP, payload)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *module) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// Close closes the idle instances now and stops the busy ones at their
// guest's next check (each is closed as its call returns). The compiled
// module stays with the runtime for the plugin's next Load.
func (m *module) Close(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	for {
		select {
		case in := <-m.idle:
			delete(m.live, in)
			in.close()
			<-m.slots
			continue
		default:
		}
		break
	}
	for in := range m.live {
		in.cancel()
	}
	return nil
}

// call writes payload into an instance and calls export under the
// deadline and the plugin's CPU share, on a thread of the lowest priority:
// this one if ctx is pinned (a plugin's event worker), else one of the
// executor's. A pinned call waits for the share as long as ctx lasts (the
// worker's queue meanwhile holds or drops events); any other waits at most
// the plugin's timeout.
func (m *module) call(ctx context.Context, export string, payload []byte) ([]byte, error) {
	here := pinned(ctx)
	// The context of a wait, made only for a call that must wait.
	var wait context.Context
	cancel := context.CancelFunc(func() {})
	defer func() { cancel() }()
	waitCtx := func() context.Context {
		if wait == nil {
			wait = ctx
			if !here {
				wait, cancel = context.WithTimeout(ctx, m.timeout)
			}
		}
		return wait
	}
	if !m.share.ready() {
		if err := m.share.take(waitCtx()); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, ErrBusy.Reasonf("The plugin used its share of the CPU; try again later")
		}
	}
	var err error
	select {
	case m.running <- struct{}{}:
	default:
		select {
		case m.running <- struct{}{}:
		case <-waitCtx().Done():
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, ErrBusy
		}
	}
	defer func() { <-m.running }()
	if here {
		return m.callHere(ctx, export, payload)
	}
	var out []byte
	if xerr := m.exec.run(func() { out, err = m.callHere(ctx, export, payload) }); xerr != nil {
		return nil, xerr
	}
	return out, err
}

// callHere is call on the calling goroutine, which is locked to its
// thread: it may use the plugin's CPU burst or its timeout of CPU time,
// whichever is less, and the share is charged what the call used, an
// instance started or discarded for it included.
func (m *module) callHere(ctx context.Context, export string, payload []byte) ([]byte, error) {
	cpu := meter()
	defer func() { m.share.charge(cpu.used()) }()
	in, err := m.getNow(ctx)
	if err != nil {
		return nil, err
	}
	// Host functions run with the caller's context, bounded by the call's
	// wall-clock bound.
	in.state.parent, in.state.deadline = ctx, time.Now().Add(wallFactor*m.timeout)
	timeout := min(m.timeout, m.share.burst)
	in.start(cpu, timeout, m.timeout)
	in.mem.hold()
	out, err := in.call(export, payload)
	in.mem.release()
	expired := in.stop()
	switch {
	case expired && timeout < m.timeout:
		err = host.Faultf("%s: used %s of CPU time, the most one call may (the CPU burst of a plugin's share)", export, timeout)
	case expired:
		err = host.Faultf("%s: deadline of %s exceeded", export, m.timeout)
	case err != nil && m.isClosed():
		err = host.ErrUnavailable.Reasonf("The plugin was stopped during the call")
	case err != nil:
		err = classify(ctx, export, err)
	}
	m.countFault(ctx, expired, timeout < m.timeout, err)
	in.state.end()
	m.put(in, err == nil)
	return out, err
}

// getNow is get with the call's deadline for waiting on a busy pool.
func (m *module) getNow(ctx context.Context) (*instance, error) {
	select {
	case in := <-m.idle:
		return in, nil
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	return m.get(ctx)
}

func (in *instance) call(export string, payload []byte) ([]byte, error) {
	ctx := in.base
	mem := in.mod.Memory()
	if uint32(len(payload)) > in.bufCap || in.buf == 0 {
		in.stack[0] = uint64(len(payload))
		if err := in.alloc.CallWithStack(ctx, in.stack[:]); err != nil {
			return nil, err
		}
		in.buf, in.bufCap = uint32(in.stack[0]), max(uint32(len(payload)), 1)
		if in.buf == 0 {
			return nil, abiError{"hearth_alloc returned 0"}
		}
	}
	ptr := in.buf
	if !mem.Write(ptr, payload) {
		return nil, abiError{fmt.Sprintf("hearth_alloc returned %d, outside memory", ptr)}
	}
	fn := in.event
	if export == exportHTTP {
		fn = in.http
	}
	in.stack[0], in.stack[1] = uint64(ptr), uint64(len(payload))
	if err := fn.CallWithStack(ctx, in.stack[:]); err != nil {
		return nil, err
	}
	packed := in.stack[0]
	if packed == 0 {
		return nil, nil
	}
	rp, rl := uint32(packed>>32), uint32(packed)
	if rl > maxAnswer {
		return nil, abiError{fmt.Sprintf("answer of %d bytes", rl)}
	}
	b, ok := mem.Read(rp, rl)
	if !ok {
		return nil, abiError{fmt.Sprintf("answer %d+%d outside memory", rp, rl)}
	}
	return append([]byte(nil), b...), nil
}

// classify turns a failed call into a host.Fault that says what happened.
func classify(ctx context.Context, what string, err error) error {
	var exit *sys.ExitError
	var abi abiError
	switch {
	case errors.As(err, &abi):
		return host.Faultf("%s: %v", what, abi)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return host.Faultf("%s: deadline exceeded", what)
	case errors.As(err, &exit):
		return host.Faultf("%s: module exited with code %d (a panic, or out of memory)", what, exit.ExitCode())
	default:
		return host.Faultf("%s: %v", what, err)
	}
}

// answerError reads an event export's answer: empty or {"error": ...}.
func answerError(out []byte) error {
	if len(out) == 0 {
		return nil
	}
	var a struct {
		Error string `json:"error"`
	}
	if err := jsonUnmarshal(out, &a); err != nil {
		return host.Faultf("undecodable answer from the event handler")
	}
	if a.Error != "" {
		return &HandlerError{Msg: a.Error}
	}
	return nil
}

// ErrBusy is a call that found no free slot, or its plugin's CPU share
// empty, before its deadline: not a fault, and answered 503.
var ErrBusy = fault.New(fault.Unavailable, "plugin_busy", "The plugin is busy; try again later")

// HandlerError is a plugin's handler reporting failure: not a fault.
type HandlerError struct{ Msg string }

func (e *HandlerError) Error() string { return "plugin handler: " + e.Msg }
