package wasm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/hearthwallet/hearth/host"
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
	// Calls answers host calls.
	Calls Dispatcher
	Log   *slog.Logger
}

// Runtime loads plugins.
type Runtime struct {
	opts    Options
	cache   wazero.CompilationCache
	running chan struct{} // one token per call running WebAssembly
	exec    *executor     // the threads of calls not made on a pinned thread
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
	reserveProcs(opts.MaxRunning)
	rt := &Runtime{opts: opts, running: make(chan struct{}, opts.MaxRunning)}
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
	rt.exec = newExecutor(opts.MaxRunning, opts.Log)
	return rt, nil
}

// Close ends the executor's threads once their calls are done and
// releases the compilation cache.
func (rt *Runtime) Close(ctx context.Context) error {
	rt.exec.close()
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
	known := map[string]bool{}
	for _, op := range host.Ops() {
		known[op] = true
	}
	known["take"] = true
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		switch mod {
		case wasi_snapshot_preview1.ModuleName:
		case host.ABIVersion:
			if !known[name] {
				return fmt.Errorf("imports %s.%s, which %s does not have", mod, name, host.ABIVersion)
			}
		default:
			return fmt.Errorf("imports module %q: plugins may import only %s and %s", mod, host.ABIVersion, wasi_snapshot_preview1.ModuleName)
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

// Load compiles the plugin (a cache hit after Check or a restart) and
// returns its pool of instances. Each plugin gets a wazero runtime of its
// own, so that its memory cap is its own.
func (rt *Runtime) Load(ctx context.Context, p *host.Plugin, wasm []byte) (host.Runner, error) {
	timeout, memory := p.Limits()
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
	m := &module{
		plugin:   p,
		runtime:  r,
		compiled: cm,
		timeout:  timeout,
		idle:     make(chan *instance, rt.opts.PoolSize),
		slots:    make(chan struct{}, rt.opts.PoolSize),
		log:      rt.opts.Log,
		running:  rt.running,
		exec:     rt.exec,
	}
	// One warm instance up front, so that a broken module fails here.
	in, err := m.instantiate(ctx)
	if err != nil {
		r.Close(ctx)
		return nil, err
	}
	m.slots <- struct{}{}
	m.idle <- in
	return m, nil
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
