package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

// build is one Hearth build of an A/B run: a `hearth` binary.
type build struct {
	label string // "A" or "B"
	name  string // what was asked for: a revision, a path or "working tree"
	bin   string
	temp  string   // a folder to remove afterwards: the working tree's build
	env   []string // KEY=VALUE set for this build's server alone (-ab-a-env, -ab-b-env)
}

// remove removes the build's binary if it was built for this run alone.
func (b build) remove() {
	if b.temp != "" {
		os.RemoveAll(b.temp)
	}
}

// buildHearth returns the binary of spec: an executable file as it is, "."
// the working tree built now, or a git revision built once in a worktree of
// its own into ${XDG_CACHE_HOME:-~/.cache}/hearth/loadbench/<commit>.
func buildHearth(ctx context.Context, label, spec string) (build, error) {
	b := build{label: label, name: spec}
	if fi, err := os.Stat(spec); err == nil && !fi.IsDir() {
		b.bin, err = filepath.Abs(spec)
		return b, err
	}
	if spec == "." {
		root, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			return b, fmt.Errorf("finding the working tree: %w", err)
		}
		dir, err := os.MkdirTemp("", "hearth-ab-")
		if err != nil {
			return b, err
		}
		b.name, b.bin, b.temp = "working tree", filepath.Join(dir, "hearth"), dir
		return b, goBuild(ctx, strings.TrimSpace(string(root)), b.bin)
	}
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--verify", spec+"^{commit}").Output()
	if err != nil {
		return b, fmt.Errorf("%q is neither a file nor a git revision", spec)
	}
	commit := strings.TrimSpace(string(out))
	cache, err := os.UserCacheDir()
	if err != nil {
		return b, err
	}
	b.name = spec + " (" + commit[:7] + ")"
	b.bin = filepath.Join(cache, "hearth", "loadbench", commit, "hearth")
	if _, err := os.Stat(b.bin); err == nil {
		return b, nil
	}
	tree, err := os.MkdirTemp("", "hearth-ab-tree-")
	if err != nil {
		return b, err
	}
	defer os.RemoveAll(tree)
	if out, err := exec.CommandContext(ctx, "git", "worktree", "add", "--detach", tree, commit).CombinedOutput(); err != nil {
		return b, fmt.Errorf("git worktree add %s: %v: %s", commit[:7], err, out)
	}
	defer exec.Command("git", "worktree", "remove", "--force", tree).Run() //nolint:errcheck // best effort
	fmt.Printf("building %s …\n", b.name)
	return b, goBuild(ctx, tree, b.bin)
}

// goBuild builds ./cmd/hearth of dir into bin, as make build does.
func goBuild(ctx context.Context, dir, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/hearth")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %v: %s", dir, err, out)
	}
	return nil
}

// instance is one `hearth serve` process of a build, on a database of its own.
type instance struct {
	build   build
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:port
	dataDir string
	drop    func() error // drops the PostgreSQL database (nil on SQLite)
	dbURL   string       // the PostgreSQL database's URL (empty on SQLite)
	exited  chan struct{}
	logTail *tail
	keep    bool // its database and data directory stay (the scale phase's)
}

var listeningRE = regexp.MustCompile(`msg="hearth listening" address=(http://\S+)`)

// startServer starts b's `hearth serve` on a free loopback port with a
// fresh database: a SQLite file in a new data directory, or a new
// PostgreSQL database made through pgURL's role ("postgres").
func startServer(ctx context.Context, b build, database, pgURL string, n int) (*instance, error) {
	dir, err := os.MkdirTemp("", "hearth-ab-data-")
	if err != nil {
		return nil, err
	}
	s := &instance{build: b, dataDir: dir, exited: make(chan struct{}), logTail: &tail{}}
	env := append(os.Environ(), "HEARTH_LISTEN=127.0.0.1:0", "HEARTH_DATA_DIR="+dir, "HEARTH_LOG_LEVEL=info")
	if database == "postgres" {
		dbURL, drop, err := freshDatabase(ctx, pgURL, fmt.Sprintf("hearth_ab_%d_%d", os.Getpid(), n))
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.drop, s.dbURL = drop, dbURL
		env = append(env, "HEARTH_DATABASE_URL="+dbURL)
	}
	if err := s.launch(ctx, append(env, b.env...)); err != nil {
		return nil, err
	}
	return s, nil
}

// launch starts s's `hearth serve` with env and waits until it listens;
// when it does not, s is stopped and cleaned up.
func (s *instance) launch(ctx context.Context, env []string) error {
	b := s.build
	s.cmd = exec.Command(b.bin, "serve")
	s.cmd.Env = env
	// Killed with this process, even stopped (pause) or when this one is
	// killed before it could stop it.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, w, err := os.Pipe() // its log, on stdout or stderr
	if err != nil {
		s.cleanup()
		return err
	}
	s.cmd.Stdout, s.cmd.Stderr = w, w
	err = s.cmd.Start()
	w.Close()
	if err != nil {
		out.Close()
		s.cleanup()
		return fmt.Errorf("starting %s: %w", b.bin, err)
	}
	found := make(chan string, 1)
	logged := make(chan struct{}) // the log read to its end
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			s.logTail.Write(append(sc.Bytes(), '\n')) //nolint:errcheck // never fails
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, out) //nolint:errcheck // drain
		out.Close()
	}()
	go func() { s.cmd.Wait(); close(s.exited) }() //nolint:errcheck // seen through exited
	select {
	case s.base = <-found:
		return nil
	case <-s.exited:
		select { // its last words, which the exit does not wait for
		case <-logged:
		case <-time.After(5 * time.Second):
		}
		err = fmt.Errorf("%s exited before listening: %s", b.name, s.logTail)
	case <-time.After(2 * time.Minute):
		err = fmt.Errorf("%s did not listen within 2 minutes: %s", b.name, s.logTail)
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.stop()
	return err
}

// stop ends the server (SIGTERM, then SIGKILL after 30 s) and removes its
// database and data directory.
func (s *instance) stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGCONT) //nolint:errcheck // a paused one would not see SIGTERM
		s.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have exited
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill() //nolint:errcheck // it may have exited
			<-s.exited
		}
	}
	s.cleanup()
}

func (s *instance) cleanup() {
	if s.keep {
		return
	}
	if s.drop != nil {
		if err := s.drop(); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
		}
	}
	os.RemoveAll(s.dataDir)
}

// cpu returns the processor time the server's process has used.
func (s *instance) cpu() time.Duration { return machine.ProcessCPU(s.cmd.Process.Pid) }

// freshDatabase creates database name through adminURL's connection and
// returns its URL and what drops it.
func freshDatabase(ctx context.Context, adminURL, name string) (string, func() error, error) {
	if adminURL == "" {
		return "", nil, errors.New("no PostgreSQL URL: pass -postgres or set HEARTH_TEST_POSTGRES_URL")
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL URL: %w", err)
	}
	run := func(ctx context.Context, sql string) error {
		conn, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	ident := pgx.Identifier{name}.Sanitize()
	if err := run(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		return "", nil, fmt.Errorf("dropping an older %s: %w", name, err)
	}
	if err := run(ctx, "CREATE DATABASE "+ident); err != nil {
		return "", nil, fmt.Errorf("creating database %s: %w", name, err)
	}
	u.Path = "/" + name
	drop := func() error {
		if err := run(context.Background(), "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("dropping database %s: %w", name, err)
		}
		return nil
	}
	return u.String(), drop, nil
}

// settle has PostgreSQL vacuum and analyze the instance's database once
// its set-up is written, as autovacuum would have done on a server long
// up: else it does so a minute later, during some phase, and the plans it
// makes before and after differ (nothing on SQLite).
func (s *instance) settle(ctx context.Context) error {
	if s.dbURL == "" {
		return nil
	}
	conn, err := pgx.Connect(ctx, s.dbURL)
	if err != nil {
		return fmt.Errorf("connecting to vacuum: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return fmt.Errorf("vacuuming the set-up: %w", err)
	}
	return nil
}

// tail keeps the last few KiB written to it: a server's log, shown when it
// fails.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 8<<10 {
		t.b = t.b[len(t.b)-4<<10:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
