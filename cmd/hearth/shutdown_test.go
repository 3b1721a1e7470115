package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	drainingRE       = regexp.MustCompile(`msg="shutting down: draining[^"]*" in_flight=(\d+)`)
	stoppedAcceptRE  = regexp.MustCompile(`msg="stopped accepting; finishing the requests in flight" in_flight=(\d+)`)
	requestsDoneRE   = regexp.MustCompile(`msg="requests finished" took=(\S+)`)
	stoppedRE        = regexp.MustCompile(`msg=stopped took=(\S+)`)
	incompleteRE     = regexp.MustCompile(`msg="shutdown incomplete: exiting with work still running" why="([^"]*)"`)
	stillInFlightRE  = regexp.MustCompile(`msg="request still in flight" method=(\S+) path=(\S+)`)
	backgroundDoneRE = regexp.MustCompile(`msg="background work stopped; cursors saved, leads given up" took=(\S+)`)
)

// signal sends sig to the process.
func (p *process) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("sending %v: %v", sig, err)
	}
}

// wait waits (generously) for the process to exit and returns its exit
// code.
func (p *process) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		p.t.Fatalf("the process did not exit; output:\n%s", p.out)
	}
	var exit *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &exit):
		return exit.ExitCode()
	default:
		p.t.Fatalf("waiting for the process: %v", p.err)
		return -1
	}
}

// slowRequest is a request whose body waits: sent with "Expect:
// 100-continue", it is in the server's handler once the server has asked
// for the body, and stays there until send.
type slowRequest struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
	body string
}

// startSlow sends the head of a POST of body to path on base with token,
// and returns once the handler asked for the body.
func startSlow(t *testing.T, base, path, body, token string) *slowRequest {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", path, u.Host, token, len(body))
	s := &slowRequest{t: t, conn: conn, r: bufio.NewReader(conn), body: body}
	line, err := s.r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		t.Fatalf("waiting for 100 Continue: %q, %v", line, err)
	}
	if blank, err := s.r.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q, %v", blank, err)
	}
	return s
}

// send sends the body and reads the answer.
func (s *slowRequest) send() *http.Response {
	s.t.Helper()
	if _, err := s.conn.Write([]byte(s.body)); err != nil {
		s.t.Fatalf("sending the body: %v", err)
	}
	res, err := http.ReadResponse(s.r, nil)
	if err != nil {
		s.t.Fatalf("reading the answer: %v", err)
	}
	return res
}

// On SIGTERM a server stops accepting at once (no drain delay), finishes
// the request in flight, whose body comes only after the listener closed,
// answers it as usual with "Connection: close", stops its background work
// and exits 0. Meanwhile a client that sends on its idle keep-alive
// connection is answered too, and told to close it.
func TestShutdownFinishesTheRequestsInFlight(t *testing.T) {
	t.Parallel()
	p, c := serveProcess(t, []string{"HEARTH_DATA_DIR=" + t.TempDir()})
	token := signUp(t, c)
	// Its own transport: the idle connection it keeps is in no pool that
	// another client of this process may take from or empty.
	own := &http.Transport{}
	t.Cleanup(own.CloseIdleConnections)
	kept := &client{t: t, base: c.base, http: &http.Client{Transport: own, Timeout: time.Minute}}
	kept.expect(kept.call("GET", "/v1/me", "", token), 200) // its connection stays open, idle
	slow := startSlow(t, c.base, "/v1/wallets", `{"user_id":"late"}`, token)

	p.signal(syscall.SIGTERM)
	if n := p.waitFor(stoppedAcceptRE)[1]; n != "1" {
		t.Errorf("in flight when the listener closed: %s, want 1 (the slow request)", n)
	}
	host := strings.TrimPrefix(c.base, "http://")
	if conn, err := net.Dial("tcp", host); err == nil {
		conn.Close()
		t.Error("a new connection was accepted after the listener closed")
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("a new connection after the listener closed: %v, want refused", err)
	}
	// On its idle connection (a new one would be refused).
	var reused bool
	req, err := http.NewRequest("GET", c.base+"/v1/me", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
	}))
	me, err := kept.http.Do(req)
	if err != nil {
		t.Fatalf("a request on a keep-alive connection during the shutdown: %v", err)
	}
	me.Body.Close()
	if me.StatusCode != 200 || !me.Close || !reused {
		t.Errorf("a request on a keep-alive connection during the shutdown: %d, closing it %v, on the kept connection %v; want 200, true, true",
			me.StatusCode, me.Close, reused)
	}

	res := slow.send()
	defer res.Body.Close()
	var w struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&w); err != nil || res.StatusCode != 201 || w.ID == "" {
		t.Fatalf("the request in flight was answered %d (%v)", res.StatusCode, err)
	}
	if !res.Close {
		t.Error("an answer during the shutdown did not close its connection")
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d; output:\n%s", code, p.out)
	}
	for _, re := range []*regexp.Regexp{requestsDoneRE, backgroundDoneRE, stoppedRE} {
		if !re.MatchString(p.out.String()) {
			t.Errorf("no %s in the output:\n%s", re, p.out)
		}
	}
}

// While a server drains (shutdown.drain_delay), health and readiness
// answer 503, other routes answer as usual but close their connection,
// and new connections are still accepted. A second SIGTERM then ends it
// at once with exit code 1, saying why.
func TestDrainDelayAnswersUnhealthyThenASecondSignalExits(t *testing.T) {
	t.Parallel()
	p, c := serveProcess(t, []string{"HEARTH_DATA_DIR=" + t.TempDir(), "HEARTH_SHUTDOWN_DRAIN_DELAY=10m"})
	c.expect(c.call("GET", "/v1/system/ready", "", ""), 204)
	p.signal(syscall.SIGTERM)
	p.waitFor(drainingRE)

	// A new client, on a new connection: still accepted.
	fresh := &client{t: t, base: c.base, http: newHTTPClient(t)}
	var h map[string]any
	fresh.decode(fresh.expect(fresh.call("GET", "/v1/system/health", "", ""), 503), &h)
	if h["draining"] != true || h["is_healthy"] != false || h["database"] != "Operational" {
		t.Errorf("health while draining: %v", h)
	}
	var problem struct{ Code string }
	fresh.decode(fresh.expect(fresh.call("GET", "/v1/system/ready", "", ""), 503), &problem)
	if problem.Code != "draining" {
		t.Errorf("readiness while draining: code %q, want draining", problem.Code)
	}
	req, err := http.NewRequest("GET", c.base+"/v1/system/version", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fresh.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !res.Close {
		t.Errorf("version while draining: %d, closing the connection %v; want 200, true", res.StatusCode, res.Close)
	}

	p.signal(syscall.SIGTERM)
	if code := p.wait(); code != 1 {
		t.Fatalf("exit code %d after a second signal, want 1; output:\n%s", code, p.out)
	}
	if why := incompleteRE.FindStringSubmatch(p.out.String()); why == nil || why[1] != "a second signal came during the drain delay" {
		t.Fatalf("no reason given; output:\n%s", p.out)
	}
}

// A request that does not finish within shutdown.timeout, or a second
// signal while it runs, ends the stop: the server logs the request still
// in flight and exits 1.
func TestShutdownCutShortNamesWhatStillRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, timeout, why string
		second             bool
	}{
		{"timeout", "1s", "shutdown.timeout (1s) passed", false},
		{"second signal", "10m", "a second signal came", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, c := serveProcess(t, []string{"HEARTH_DATA_DIR=" + t.TempDir(), "HEARTH_SHUTDOWN_TIMEOUT=" + tc.timeout})
			token := signUp(t, c)
			startSlow(t, c.base, "/v1/wallets", `{"user_id":"never"}`, token)
			p.signal(syscall.SIGTERM)
			p.waitFor(stoppedAcceptRE)
			if tc.second {
				p.signal(syscall.SIGTERM)
			}
			if code := p.wait(); code != 1 {
				t.Fatalf("exit code %d, want 1; output:\n%s", code, p.out)
			}
			out := p.out.String()
			if why := incompleteRE.FindStringSubmatch(out); why == nil || why[1] != tc.why {
				t.Fatalf("reason: %v, want %q; output:\n%s", why, tc.why, out)
			}
			if m := stillInFlightRE.FindStringSubmatch(out); m == nil || m[1] != "POST" || m[2] != "/v1/wallets" {
				t.Fatalf("the request in flight is not named; output:\n%s", out)
			}
		})
	}
}
