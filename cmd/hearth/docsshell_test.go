package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// docShellPrelude runs in every docs shell before the first command. curl
// is the reader's curl, with its answer checked as `curl -f` would: a status
// of 400 or more, or none, fails the command (the body is still printed). A
// stream (curl -N) is read to its first line and then left, as a reader
// who saw it start would press Ctrl-C.
const docShellPrelude = `set -o pipefail
curl() {
	local headers rc status
	headers=$(mktemp "$DOCS_TEST_TMP/headers.XXXXXX") || return 1
	case " $* " in
	*" -N "*) docs_test_stream "$headers" "$@"; rc=$? ;;
	*) command curl -D "$headers" "$@"; rc=$? ;;
	esac
	status=$(awk 'toupper($1) ~ /^HTTP\// { s = $2 } END { print s }' "$headers")
	rm -f "$headers"
	if [ "$rc" -ne 0 ]; then
		echo "docs-test: curl exited $rc" >&2
		return "$rc"
	fi
	if [ -z "$status" ] || [ "$status" -ge 400 ]; then
		echo "docs-test: HTTP ${status:-none}" >&2
		return 22
	fi
}
docs_test_stream() {
	local headers=$1 line fd
	shift
	coproc DOCS_TEST_STREAM { exec curl -i "$@"; }
	exec {fd}<&"${DOCS_TEST_STREAM[0]}"
	while IFS= read -r -t 60 line <&"$fd"; do
		line=${line%$'\r'}
		[ -z "$line" ] && break
		printf '%s\n' "$line" >>"$headers"
	done
	IFS= read -r -t 60 line <&"$fd" && printf '%s\n' "$line"
	kill "$DOCS_TEST_STREAM_PID" 2>/dev/null
	wait "$DOCS_TEST_STREAM_PID" 2>/dev/null
	exec {fd}<&-
	return 0
}
`

// docShell is one bash process into which a document's commands are
// pasted one at a time, as a reader pastes them into one terminal: the
// variables one command sets are there for the next.
type docShell struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *syncWriter
	done           chan struct{}
	mark           string
	outAt, errAt   int // what the commands before have printed
}

// shellResult is what one command did.
type shellResult struct {
	code           int
	stdout, stderr string
}

// startDocShell starts bash in dir with environ as its whole environment.
// It is stopped, with whatever it started, when the test ends.
func startDocShell(t *testing.T, dir string, environ []string) *docShell {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	s := &docShell{t: t, stdout: newSyncWriter(), stderr: newSyncWriter(), done: make(chan struct{}),
		mark: "docs-test-done-" + hex.EncodeToString(b)}
	s.cmd = exec.Command("bash", "--noprofile", "--norc", "-s")
	s.cmd.Dir = dir
	s.cmd.Env = append(environ, "DOCS_TEST_TMP="+t.TempDir())
	s.cmd.Stdout, s.cmd.Stderr = s.stdout, s.stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.WaitDelay = 10 * time.Second
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting bash: %v", err)
	}
	go func() {
		defer close(s.done)
		s.cmd.Wait() //nolint:errcheck // killed at the end of the test
	}()
	t.Cleanup(s.stop)
	if _, err := io.WriteString(s.stdin, docShellPrelude); err != nil {
		t.Fatalf("writing to bash: %v", err)
	}
	return s
}

// stop kills bash and what it started (its process group).
func (s *docShell) stop() {
	s.stdin.Close()
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // it may be gone already
	<-s.done
}

// run pastes command and waits for it to end, at most timeout. Its stdin
// is empty: a command never reads the next ones.
func (s *docShell) run(command string, timeout time.Duration) (shellResult, error) {
	script := fmt.Sprintf("{\n%s\n} </dev/null\nprintf '\\n%%s %%d\\n' %s \"$?\"\nprintf '\\n%%s\\n' %s >&2\n",
		command, s.mark, s.mark)
	if _, err := io.WriteString(s.stdin, script); err != nil {
		return shellResult{}, fmt.Errorf("writing to bash: %w", err)
	}
	deadline := time.Now().Add(timeout)
	outRE := regexp.MustCompile(`\n` + s.mark + ` (\d+)\n`)
	errRE := regexp.MustCompile(`\n` + s.mark + `\n`)
	out, outEnd, err := s.until(s.stdout, s.outAt, outRE, deadline)
	if err != nil {
		return shellResult{}, err
	}
	errOut, errEnd, err := s.until(s.stderr, s.errAt, errRE, deadline)
	if err != nil {
		return shellResult{}, err
	}
	s.outAt, s.errAt = outEnd, errEnd
	code, _ := strconv.Atoi(out[1])
	return shellResult{code: code, stdout: out[0], stderr: errOut[0]}, nil
}

// until waits for re in w's output after from, and returns what came
// before it and its groups, and where it ends.
func (s *docShell) until(w *syncWriter, from int, re *regexp.Regexp, deadline time.Time) ([]string, int, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		all := w.String()
		if loc := re.FindStringSubmatchIndex(all[from:]); loc != nil {
			got := []string{all[from : from+loc[0]]}
			for i := 2; i < len(loc); i += 2 {
				got = append(got, all[from+loc[i]:from+loc[i+1]])
			}
			return got, from + loc[1], nil
		}
		select {
		case <-w.changed:
		case <-s.done:
			return nil, 0, fmt.Errorf("bash exited; its last output:\n%s%s", tail(s.stdout.String()), tail(s.stderr.String()))
		case <-timer.C:
			return nil, 0, fmt.Errorf("still running at its deadline; its output so far:\n%s%s", tail(all[from:]), tail(s.stderr.String()[s.errAt:]))
		}
	}
}

// variable returns the value of a variable of the shell.
func (s *docShell) variable(name string) (string, error) {
	r, err := s.run(`printf '%s' "$`+name+`"`, time.Minute)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(r.stdout, "\n"), nil
}

// tail is the end of a long output, enough to see why it failed.
func tail(s string) string {
	const keep = 4000
	if len(s) > keep {
		return "…" + s[len(s)-keep:]
	}
	return s
}
