package hearthbin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

// Server is one `hearth serve` process of a build, on a database of its own.
type Server struct {
	build   Build
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:port
	dataDir string
	drop    func() error // drops the PostgreSQL database (nil on SQLite)
	dbURL   string       // the PostgreSQL database's URL (empty on SQLite)
	exited  chan struct{}
	logTail *tail
	keep    bool // its database and data directory stay (Kept)
}

// listeningRE finds the address in the line Hearth logs once it listens.
var listeningRE = regexp.MustCompile(`msg="hearth listening" address=(http://\S+)`)

// Start starts b's `hearth serve` on a free loopback port with a fresh
// database, database's: a SQLite file in a new data directory, or a new
// PostgreSQL database made through pgURL's role, named after this process
// and n. Stop removes both.
func Start(ctx context.Context, b Build, database, pgURL string, n int) (*Server, error) {
	dir, err := os.MkdirTemp("", "hearth-ab-data-")
	if err != nil {
		return nil, err
	}
	s := &Server{build: b, dataDir: dir, exited: make(chan struct{}), logTail: &tail{}}
	env := append(os.Environ(), "HEARTH_LISTEN=127.0.0.1:0", "HEARTH_DATA_DIR="+dir, "HEARTH_LOG_LEVEL=info")
	if database == "postgres" {
		dbURL, drop, err := FreshDatabase(ctx, pgURL, fmt.Sprintf("hearth_ab_%d_%d", os.Getpid(), n))
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.drop, s.dbURL = drop, dbURL
		env = append(env, "HEARTH_DATABASE_URL="+dbURL)
	}
	if err := s.launch(ctx, append(env, b.Env...)); err != nil {
		return nil, err
	}
	return s, nil
}

// Kept starts b's `hearth serve` with env on a database kept between runs
// (dataDir, and dbURL on PostgreSQL): Stop leaves it.
func Kept(ctx context.Context, b Build, dataDir, dbURL string, env []string) (*Server, error) {
	s := &Server{build: b, dataDir: dataDir, dbURL: dbURL, exited: make(chan struct{}), logTail: &tail{}, keep: true}
	if err := s.launch(ctx, env); err != nil {
		return nil, err
	}
	return s, nil
}

// launch starts s's `hearth serve` with env and waits until it listens;
// when it does not, s is stopped and cleaned up.
func (s *Server) launch(ctx context.Context, env []string) error {
	b := s.build
	s.cmd = exec.Command(b.Bin, "serve")
	s.cmd.Env = env
	// Killed with this process, even stopped (Pause) or when this one is
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
		return fmt.Errorf("starting %s: %w", b.Bin, err)
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
		err = fmt.Errorf("%s exited before listening: %s", b.Name, s.logTail)
	case <-time.After(2 * time.Minute):
		err = fmt.Errorf("%s did not listen within 2 minutes: %s", b.Name, s.logTail)
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.Stop()
	return err
}

// Stop ends the server (SIGTERM, then SIGKILL after 30 s) and removes its
// database and data directory, unless they are kept.
func (s *Server) Stop() {
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

func (s *Server) cleanup() {
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

// Pause stops the server's process (SIGSTOP) while another build is
// measured; Resume lets it go on.
func (s *Server) Pause() { s.cmd.Process.Signal(syscall.SIGSTOP) } //nolint:errcheck // it may have exited

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() { s.cmd.Process.Signal(syscall.SIGCONT) } //nolint:errcheck // it may have exited

// CPU returns the processor time the server's process has used.
func (s *Server) CPU() time.Duration { return machine.ProcessCPU(s.cmd.Process.Pid) }

// Base is the server's URL, http://127.0.0.1:port.
func (s *Server) Base() string { return s.base }

// Label is the label of the build the server runs ("A", "B").
func (s *Server) Label() string { return s.build.Label }

// Log is the end of the server's log, to show when it fails.
func (s *Server) Log() string { return s.logTail.String() }

// Settle has PostgreSQL vacuum and analyze the server's database once
// its set-up is written, as autovacuum would have done on a server long
// up: else it does so a minute later, during some phase, and the plans it
// makes before and after differ (nothing on SQLite).
func (s *Server) Settle(ctx context.Context) error {
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
// fails. Past 8 KiB it drops all but the last 4.
type tail struct {
	mu sync.Mutex
	b  []byte
}

// Write keeps p, dropping the oldest of what it holds past 8 KiB.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 8<<10 {
		t.b = t.b[len(t.b)-4<<10:]
	}
	return len(p), nil
}

// String is what the tail holds.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// FreshDatabase creates database name through adminURL's connection,
// dropping one of that name first, and returns its URL and what drops it.
func FreshDatabase(ctx context.Context, adminURL, name string) (string, func() error, error) {
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
