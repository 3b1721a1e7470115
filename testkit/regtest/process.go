package regtest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// BinEnv names the variable holding the folder of lnd, lncli, btcd and
// btcctl (scripts/test.sh sets it from scripts/regtest-build.sh).
const BinEnv = "HEARTH_REGTEST_BIN"

// Binaries returns the folder holding the regtest binaries: $BinEnv, or
// else the cache folder scripts/regtest-build.sh builds into, keyed by the
// versions pinned in tools/regtest/go.mod. It returns an error wrapping
// ErrNoBinaries when they are not there.
func Binaries() (string, error) {
	dir := os.Getenv(BinEnv)
	if dir == "" {
		var err error
		if dir, err = cacheDir(); err != nil {
			return "", fmt.Errorf("%w: %v; run scripts/regtest-build.sh or set %s", ErrNoBinaries, err, BinEnv)
		}
	}
	for _, name := range []string{"lnd", "lncli", "btcd", "btcctl"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("%w: no %s in %s; run scripts/regtest-build.sh or set %s", ErrNoBinaries, name, dir, BinEnv)
		}
	}
	return dir, nil
}

// cacheDir finds tools/regtest/go.mod above the working folder and returns
// the cache folder named after its lnd and btcd versions.
func cacheDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		mod := filepath.Join(d, "tools", "regtest", "go.mod")
		if b, err := os.ReadFile(mod); err == nil {
			lnd, btcd := requiredVersion(string(b), "github.com/lightningnetwork/lnd"), requiredVersion(string(b), "github.com/btcsuite/btcd")
			if lnd == "" || btcd == "" {
				return "", fmt.Errorf("%s pins no lnd or btcd version", mod)
			}
			base, err := cacheBase()
			if err != nil {
				return "", err
			}
			return filepath.Join(base, "hearth", "regtest", lnd+"-"+btcd, "bin"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("tools/regtest/go.mod not found above " + wd)
		}
	}
}

func requiredVersion(gomod, module string) string {
	sc := bufio.NewScanner(strings.NewReader(gomod))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(f) >= 2 && f[0] == module && strings.HasPrefix(f[1], "v") {
			return f[1]
		}
	}
	return ""
}

// freePort returns a loopback port nobody listens on right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// process is a started binary whose output goes to a log file.
type process struct {
	name    string
	path    string
	args    []string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{}
	err     error // after done
}

func (p *process) start() error { return p.startEnv(nil) }

// startEnv starts the process with env (nil: this process's environment).
func (p *process) startEnv(env []string) error {
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	// A process group of its own: a Ctrl-C of `make devnet` reaches the
	// harness, which stops lnd before btcd.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	p.cmd, p.done = cmd, make(chan struct{})
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return nil
}

// running reports whether the process has not exited.
func (p *process) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// exited returns an error once the process has exited, for polls that
// should stop waiting for a dead process.
func (p *process) exited() error {
	if p.running() {
		return nil
	}
	return fmt.Errorf("%s exited: %v", p.name, p.err)
}

// stop asks the process to end (SIGINT), and kills it after timeout.
func (p *process) stop(timeout time.Duration) {
	if p == nil || p.cmd == nil || !p.running() {
		return
	}
	p.cmd.Process.Signal(os.Interrupt) //nolint:errcheck // it may have exited meanwhile
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.kill()
	}
}

// kill ends the process at once (SIGKILL) and waits for it.
func (p *process) kill() {
	if p == nil || p.cmd == nil || !p.running() {
		return
	}
	p.cmd.Process.Kill() //nolint:errcheck // it may have exited meanwhile
	<-p.done
}
