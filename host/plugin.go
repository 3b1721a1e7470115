package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// State is where a plugin is in its life.
type State string

// The states of a plugin.
const (
	Installed State = "installed" // uploaded, not running
	Enabled   State = "enabled"   // running: receives events, serves routes, calls the host
	Disabled  State = "disabled"  // stopped by the admin
	Failed    State = "failed"    // stopped after repeated faults, or unloadable
)

// MaxFaults is how many faults in a row mark a plugin failed.
const MaxFaults = 3

// A plugin logs at most LogRate lines a second through the host, in
// bursts of LogBurst: a plugin that logs in a loop must not flood the
// server's log. The lines over it are dropped, and counted in the next one.
const (
	LogRate  = 20
	LogBurst = 100
)

// Runner runs a plugin's code: a WebAssembly module or a built-in.
type Runner interface {
	// Event delivers one JSON event.
	Event(ctx context.Context, payload []byte) error
	// HTTP serves one JSON request and returns the JSON response.
	HTTP(ctx context.Context, payload []byte) ([]byte, error)
	// Close releases the runner's instances.
	Close(ctx context.Context) error
}

// Loader makes the Runner of an installed WebAssembly plugin.
type Loader interface {
	// Load returns a new Runner of p. It calls code for p's module only
	// when it keeps nothing compiled from an earlier Load of p.
	Load(ctx context.Context, p *Plugin, code func(context.Context) ([]byte, error)) (Runner, error)
	// Unload releases what Load keeps for p, once p is removed.
	Unload(ctx context.Context, p *Plugin)
}

// Fault is a plugin misbehaving: it trapped, exited, ran out of time or
// memory, or broke the ABI. The instance that faulted is discarded.
type Fault struct{ Reason string }

func (f *Fault) Error() string { return "plugin fault: " + f.Reason }

// Faultf returns a Fault.
func Faultf(format string, args ...any) error { return &Fault{Reason: fmt.Sprintf(format, args...)} }

// IsFault reports whether err is a Fault.
func IsFault(err error) bool {
	var f *Fault
	return errors.As(err, &f)
}

// Plugin is one registered plugin.
type Plugin struct {
	Name     string
	Manifest *Manifest
	Builtin  bool
	SHA256   string

	grant  atomic.Pointer[Grant]
	config atomic.Pointer[[]byte]
	logs   *ring
	// logLimit bounds what the plugin logs through the host; logsDropped
	// counts the lines it refused since the last one it let through.
	logLimit    *rate.Limiter
	logsDropped atomic.Uint64
	gone        chan struct{}
	goneMu      sync.Once

	// served are a built-in's routes (AddBuiltin), shown as its manifest's.
	served []Route
	// powers are what a built-in took from its environment (AddFeature).
	powers []string

	delivered atomic.Uint64
	dropped   atomic.Uint64 // events missed: the plugin was not running

	mu        sync.Mutex
	state     State
	lastError string
	// healthCheck and health: the built-in's health check (health.go) and
	// its last outcome.
	healthCheck func(ctx context.Context) error
	health      string
	faults      int
	runner      Runner
	created     time.Time
}

func newPlugin(m *Manifest, builtin bool) *Plugin {
	p := &Plugin{
		Name:     m.Name,
		Manifest: m,
		Builtin:  builtin,
		logs:     newRing(200),
		logLimit: rate.NewLimiter(LogRate, LogBurst),
		gone:     make(chan struct{}),
		state:    Installed,
		created:  time.Now().UTC(),
	}
	p.grant.Store(&Grant{})
	empty := []byte("{}")
	p.config.Store(&empty)
	return p
}

// Grant returns what the admin granted.
func (p *Plugin) Grant() Grant { return *p.grant.Load() }

// Config returns the plugin's configuration (JSON).
func (p *Plugin) Config() []byte { return *p.config.Load() }

// State returns the plugin's state.
func (p *Plugin) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// Limits returns the sandbox limits as durations and bytes.
func (p *Plugin) Limits() (timeout time.Duration, memoryBytes uint64) {
	l := p.Manifest.Limits
	return time.Duration(l.TimeoutMS) * time.Millisecond, uint64(l.MemoryMiB) << 20
}

// running returns the runner when the plugin is enabled.
func (p *Plugin) running() (Runner, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runner, p.state == Enabled && p.runner != nil
}

// Log records a line in the plugin's recent logs.
func (p *Plugin) Log(level, msg string) {
	p.logs.add(LogEntry{At: time.Now().UTC(), Level: level, Msg: msg})
}

// LogEntry is one line of a plugin's log.
type LogEntry struct {
	At    time.Time `json:"at"`
	Level string    `json:"level"`
	Msg   string    `json:"msg"`
}

// ring keeps the last n log entries.
type ring struct {
	mu   sync.Mutex
	buf  []LogEntry
	next int
	full bool
}

func newRing(n int) *ring { return &ring{buf: make([]LogEntry, n)} }

func (r *ring) add(e LogEntry) {
	if len(e.Msg) > 2000 {
		e.Msg = e.Msg[:2000] + "…"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf[r.next] = e
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

// last returns up to n entries, oldest first.
func (r *ring) last(n int) []LogEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []LogEntry
	if r.full {
		all = append(all, r.buf[r.next:]...)
	}
	all = append(all, r.buf[:r.next]...)
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}

// RunnerOf returns the plugin's runner (nil when stopped); for tests and
// benchmarks that drive a runner directly.
func RunnerOf(p *Plugin) Runner {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runner
}
