package wasm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// The exports a plugin module must have (the SDK provides them).
const (
	exportInit  = "_initialize"
	exportAlloc = "hearth_alloc"
	exportEvent = "hearth_event"
	exportHTTP  = "hearth_http"
)

// Dispatcher answers host calls: host.API.
type Dispatcher interface {
	Dispatch(ctx context.Context, p *host.Plugin, name string, req []byte) ([]byte, *host.CallError)
}

// Options configure the runtime.
type Options struct {
	// CacheDir keeps compiled modules across restarts; "" for memory only.
	CacheDir string
	// PoolSize bounds the live instances of one plugin. Default 4.
	PoolSize int
	// MaxRunning bounds the calls running WebAssembly at once, across
	// every plugin. They run on threads of the lowest priority, which take
	// no CPU that payments want, so the default is the CPUs Go would use
	// (GOMAXPROCS as the process started); New raises GOMAXPROCS by twice
	// as many (reserveProcs) unless the GOMAXPROCS environment variable is
	// set.
	MaxRunning int
	// CPUShare is the share of one CPU each plugin may use over time, and
	// CPUBurst the most CPU time one call may use, whatever its timeout,
	// and the most an idle plugin saves up (see cpuShare). Defaults
	// DefaultCPUShare and DefaultCPUBurst.
	CPUShare float64
	CPUBurst time.Duration
	// NormalPriority keeps the threads that run guest code at the
	// process's priority instead of the lowest (SCHED_IDLE). Only for
	// tests on a machine that other processes keep busy, where threads of
	// the lowest priority get no CPU and every plugin start runs out of
	// time; a server never sets it: the lowest priority is what keeps
	// payments fast beside a hostile plugin.
	NormalPriority bool
	// Calls answers host calls.
	Calls Dispatcher
	// Metrics, when set, counts the calls into each plugin.
	Metrics *metrics.Plugins
	Log     *slog.Logger
}

// Runtime loads plugins.
type Runtime struct {
	opts    Options
	cache   wazero.CompilationCache
	running chan struct{} // one token per call running WebAssembly
	exec    *executor     // the threads of calls not made on a pinned thread
	shares  shares        // each plugin's CPU share, by name

	mu       sync.Mutex
	compiled map[*host.Plugin]*compiled // what Load keeps of each plugin, until Unload
}

// New returns a runtime.
func New(opts Options) (*Runtime, error) {
	if opts.PoolSize <= 0 {
		opts.PoolSize = 4
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.MaxRunning <= 0 {
		opts.MaxRunning = max(1, procs0)
	}
	if opts.CPUShare <= 0 {
		opts.CPUShare = DefaultCPUShare
	}
	if opts.CPUBurst <= 0 {
		opts.CPUBurst = DefaultCPUBurst
	}
	reserveProcs(opts.MaxRunning)
	rt := &Runtime{
		opts:     opts,
		running:  make(chan struct{}, opts.MaxRunning),
		shares:   shares{rate: opts.CPUShare, burst: opts.CPUBurst},
		compiled: map[*host.Plugin]*compiled{},
	}
	if opts.CacheDir != "" {
		if err := os.MkdirAll(opts.CacheDir, 0o700); err != nil {
			return nil, fmt.Errorf("creating plugin cache: %w", err)
		}
		c, err := wazero.NewCompilationCacheWithDir(opts.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("opening plugin cache: %w", err)
		}
		rt.cache = c
	} else {
		rt.cache = wazero.NewCompilationCache()
	}
	rt.exec = newExecutor(opts.MaxRunning, !opts.NormalPriority, opts.Log)
	return rt, nil
}

// Close ends the executor's threads once their calls are done, closes
// every plugin's runtime and releases the compilation cache.
func (rt *Runtime) Close(ctx context.Context) error {
	rt.exec.close()
	rt.mu.Lock()
	kept := rt.compiled
	rt.compiled = map[*host.Plugin]*compiled{}
	rt.mu.Unlock()
	for _, c := range kept {
		c.runtime.Close(ctx) //nolint:errcheck // closing wazero's own resources
	}
	return rt.cache.Close(ctx)
}

func (rt *Runtime) config(memoryBytes uint64) wazero.RuntimeConfig {
	pages := uint32(memoryBytes / 65536)
	return wazero.NewRuntimeConfig().
		WithCompilationCache(rt.cache).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(pages)
}

// Check compiles wasm and validates its imports and exports against the ABI.
func (rt *Runtime) Check(ctx context.Context, wasm []byte) error {
	r := wazero.NewRuntimeWithConfig(ctx, rt.config(host.DefaultMemoryMiB<<20))
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		return fmt.Errorf("compiling module: %w", err)
	}
	return checkABI(cm)
}

func checkABI(cm wazero.CompiledModule) error {
	known := map[string]map[string]bool{}
	for _, abi := range host.ABIVersions {
		known[abi] = map[string]bool{"take": true}
		for _, op := range host.OpsOf(abi) {
			known[abi][op] = true
		}
	}
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		switch ops, ok := known[mod]; {
		case mod == wasi_snapshot_preview1.ModuleName:
		case ok:
			if !ops[name] {
				return fmt.Errorf("imports %s.%s, which %s does not have", mod, name, mod)
			}
		default:
			return fmt.Errorf("imports module %q: plugins may import only %s and %s", mod,
				strings.Join(host.ABIVersions, ", "), wasi_snapshot_preview1.ModuleName)
		}
	}
	if len(cm.ImportedMemories()) > 0 {
		return errors.New("imports a memory")
	}
	ex := cm.ExportedFunctions()
	for _, name := range []string{exportInit, exportAlloc, exportEvent, exportHTTP} {
		if _, ok := ex[name]; !ok {
			return fmt.Errorf("does not export %s (build with the Hearth SDK and -buildmode=c-shared)", name)
		}
	}
	return nil
}

// compiled is what the runtime keeps of a plugin between its runners: its
// wazero runtime (WASI and the host module bound to the plugin) and its
// compiled module. Decoding and validating a Go plugin of a few MB takes
// tens of ms of CPU and leaves tens of MB to the garbage collector, which
// payments then pay for: a plugin disabled and enabled again (or failed
// and re-enabled, however often) does it once.
type compiled struct {
	sha256  string
	runtime wazero.Runtime
	module  wazero.CompiledModule
}

// Load returns a new pool of instances of p, its module compiled (a cache
// hit after Check or a restart) unless the runtime kept it from p's last
// Load. Each plugin gets a wazero runtime of its own, so that its memory
// cap is its own. The code is read here, and the rest runs on a plugin
// thread; the start of the first instance, which runs guest code, is
// charged to the plugin's CPU share.
func (rt *Runtime) Load(ctx context.Context, p *host.Plugin, code func(context.Context) ([]byte, error)) (host.Runner, error) {
	var wasm []byte
	if rt.kept(p) == nil {
		// Read on this goroutine: a thread of the lowest priority must
		// never hold a database connection that payments wait for.
		var err error
		if wasm, err = code(ctx); err != nil {
			return nil, err
		}
	}
	var m *module
	var err error
	if xerr := rt.exec.run(func() { m, err = rt.load(ctx, p, wasm) }); xerr != nil {
		return nil, xerr
	}
	if err != nil {
		return nil, err // not a nil *module in a Runner
	}
	return m, nil
}

// load is Load on the calling thread, with p's code unless the runtime
// keeps it compiled.
func (rt *Runtime) load(ctx context.Context, p *host.Plugin, wasm []byte) (*module, error) {
	c, err := rt.compiledOf(ctx, p, wasm)
	if err != nil {
		return nil, err
	}
	timeout, _ := p.Limits()
	m := &module{
		plugin:   p,
		runtime:  c.runtime,
		compiled: c.module,
		timeout:  timeout,
		idle:     make(chan *instance, rt.opts.PoolSize),
		slots:    make(chan struct{}, rt.opts.PoolSize),
		live:     map[*instance]struct{}{},
		log:      rt.opts.Log,
		running:  rt.running,
		exec:     rt.exec,
		share:    rt.shares.of(p.Name),
		obs:      rt.opts.Metrics.Of(p.Name),
	}
	// One warm instance up front, so that a broken module fails here.
	m.slots <- struct{}{}
	cpu := meter()
	in, err := m.instantiate(ctx)
	m.share.charge(cpu.used())
	if err != nil {
		<-m.slots
		return nil, err
	}
	m.idle <- in
	return m, nil
}

// kept returns what the runtime keeps of p, if it is of p's code.
func (rt *Runtime) kept(p *host.Plugin) *compiled {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if c, ok := rt.compiled[p]; ok && c.sha256 == p.SHA256 {
		return c
	}
	return nil
}

// compiledOf returns what the runtime keeps of p, or compiles wasm (p's
// code) and keeps that in place of anything older.
func (rt *Runtime) compiledOf(ctx context.Context, p *host.Plugin, wasm []byte) (*compiled, error) {
	if c := rt.kept(p); c != nil {
		return c, nil
	}
	if wasm == nil {
		return nil, errors.New("the plugin's code was unloaded meanwhile")
	}
	rt.Unload(ctx, p)
	_, memory := p.Limits()
	r := wazero.NewRuntimeWithConfig(ctx, rt.config(memory))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("instantiating WASI: %w", err)
	}
	if err := rt.instantiateHost(ctx, r, p); err != nil {
		r.Close(ctx)
		return nil, err
	}
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("compiling module: %w", err)
	}
	if err := checkABI(cm); err != nil {
		r.Close(ctx)
		return nil, err
	}
	c := &compiled{sha256: p.SHA256, runtime: r, module: cm}
	rt.mu.Lock()
	rt.compiled[p] = c
	rt.mu.Unlock()
	return c, nil
}

// Unload closes what the runtime keeps of p: its runtime, and with it any
// instance still open.
func (rt *Runtime) Unload(ctx context.Context, p *host.Plugin) {
	rt.mu.Lock()
	c, ok := rt.compiled[p]
	delete(rt.compiled, p)
	rt.mu.Unlock()
	if ok {
		c.runtime.Close(ctx) //nolint:errcheck // closing wazero's own resources
	}
}

// moduleConfig gives an instance nothing of the outside world: no
// filesystem, no environment, no arguments, no stdio; real clocks and a
// cryptographic random source, which Go's runtime needs.
func moduleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(exportInit).
		WithSysWalltime().
		WithSysNanotime().
		WithSysNanosleep().
		WithRandSource(rand.Reader)
}
