package main

import (
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// serverProcessEnv makes the test binary run main() instead of the tests:
// the process-level tests start servers that they can kill -9.
const serverProcessEnv = "HEARTH_TEST_SERVER_PROCESS"

// process is `hearth` running as a process of its own.
type process struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *syncWriter
	done chan struct{}
	err  error
}

// startProcess runs `hearth args…` with environ added to the environment.
// The process is killed, if still running, when the test ends.
func startProcess(t *testing.T, environ []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), serverProcessEnv+"=1"), environ...)
	p := &process{t: t, cmd: cmd, out: newSyncWriter(), done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		p.err = cmd.Wait()
	}()
	t.Cleanup(p.kill)
	return p
}

// kill ends the process with SIGKILL, as a power cut or the OOM killer
// would, and waits for it to be gone.
func (p *process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // it may have just exited
	<-p.done
}

// waitFor waits (generously: the machine may be busy) for the output to
// match re, failing the test if the process exits first.
func (p *process) waitFor(re *regexp.Regexp) []string {
	p.t.Helper()
	m, err := p.out.waitFor(re, p.done, 2*time.Minute)
	if err != nil {
		p.t.Fatalf("%v (exit: %v); output:\n%s", err, p.err, p.out)
	}
	return m
}

// serveProcess starts `hearth serve` on a free port and returns it and a client
// of it once it listens.
func serveProcess(t *testing.T, environ []string) (*process, *client) {
	t.Helper()
	p := startProcess(t, append([]string{"HEARTH_LISTEN=127.0.0.1:0"}, environ...), "serve")
	base := p.waitFor(listeningRE)[1]
	c := &client{t: t, base: base, http: &http.Client{Timeout: time.Minute}}
	t.Cleanup(c.http.CloseIdleConnections)
	return p, c
}

// databases runs fn once per database: SQLite in a fresh data directory,
// and PostgreSQL in a fresh schema. environ selects the database.
func databases(t *testing.T, fn func(t *testing.T, environ []string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, []string{"HEARTH_DATA_DIR=" + t.TempDir()})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, []string{"HEARTH_DATA_DIR=" + t.TempDir(), "HEARTH_DATABASE_URL=" + storetest.EmptySchemaURL(t)})
	})
}
