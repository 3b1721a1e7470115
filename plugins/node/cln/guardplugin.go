package cln

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/elementsproject/glightning/jrpc2"
)

// StartedAsPlugin reports whether lightningd started this process as one
// of its plugins: it runs them with no arguments (--developer in
// developer mode) and LIGHTNINGD_PLUGIN=1 in their environment (lightningd's plugin protocol). hearth's main reads
// it to run its cln-guard command when lightningd loads the hearth
// executable itself (plugin=/path/to/hearth, node.cln.guard "external").
func StartedAsPlugin(environ []string) bool {
	return slices.Contains(environ, "LIGHTNINGD_PLUGIN=1")
}

// RunGuard runs the invoice guard as a lightningd plugin over stdin and
// stdout, and ends the process when lightningd closes them or shuts down:
// the `hearth cln-guard` command, which lightningd starts when Hearth
// asks it to (Config.Guard "auto", Config.GuardPlugin). It holds Hearth's
// hold invoices too (holdwire.go).
func RunGuard() {
	g := &guardPlugin{holds: newHolder()}
	srv := jrpc2.NewServer()
	for name, run := range map[string]func(*pluginCall) (any, error){
		"getmanifest":     func(*pluginCall) (any, error) { return manifest(), nil },
		"init":            g.init,
		"invoice_payment": g.invoicePayment,
		"htlc_accepted":   g.holds.htlcAccepted,
		methodHoldSettle:  g.holds.settle,
		methodHoldCancel:  g.holds.cancel,
		methodHoldWait:    g.holds.wait,
		"shutdown":        func(*pluginCall) (any, error) { g.exit(0); return nil, nil },
	} {
		if err := srv.Register(&pluginCall{name: name, run: run}); err != nil {
			log.Fatalf("hearth invoice guard: %v", err)
		}
	}
	err := srv.StartUp(os.Stdin, os.Stdout) // returns when lightningd closes stdin
	if err != nil {
		log.Printf("hearth invoice guard: %v", err)
	}
	g.exit(0)
}

// guardPlugin is the guard's lightningd side: the hooks, the socket, the
// Hearth connected to it, if any, and the hold invoices.
type guardPlugin struct {
	ln    net.Listener
	holds *holder

	mu     sync.Mutex
	hearth *guardConn // nil while no Hearth is connected
	next   uint64     // the last question's ID
}

// guardConn is one connected Hearth.
type guardConn struct {
	conn    net.Conn
	wmu     sync.Mutex
	enc     *json.Encoder
	waiting map[uint64]chan bool // under guardPlugin.mu; closed when Hearth leaves
}

// init listens on the guard's socket, beside lightningd's JSON-RPC socket
// and with its permissions. A plugin that cannot exits, so that
// lightningd's `plugin start` reports why.
func (g *guardPlugin) init(c *pluginCall) (any, error) {
	var conf pluginConfiguration
	if err := json.Unmarshal(c.Configuration, &conf); err != nil {
		log.Printf("hearth invoice guard: init's configuration: %v", err)
		os.Exit(1)
	}
	rpc := conf.RPCFile
	if !filepath.IsAbs(rpc) {
		rpc = filepath.Join(conf.LightningDir, rpc)
	}
	g.holds.node = &Node{path: rpc}
	go g.holds.sweepLoop()
	path := guardSocket(rpc)
	if !socketFreed(path, guardTakeover) {
		log.Printf("hearth invoice guard: another guard listens on %s", path)
		os.Exit(1)
	}
	_ = os.Remove(path) // a guard's socket left by a crash
	ln, err := net.Listen("unix", path)
	if err != nil {
		log.Printf("hearth invoice guard: %v", err)
		os.Exit(1)
	}
	if fi, err := os.Stat(rpc); err == nil {
		_ = os.Chmod(path, fi.Mode().Perm())
	}
	g.ln = ln
	log.Printf("hearth invoice guard: listening on %s", path)
	go g.serve()
	return struct{}{}, nil
}

// guardTakeover is how long a starting guard waits for the socket of
// another to go: the guard of a lightningd that crashed ends once it reads
// the end of its stdin, a moment after lightningd is gone, and the
// restarted lightningd may start its own first.
const guardTakeover = 5 * time.Second

// socketFreed waits up to wait for no guard to listen on path.
func socketFreed(path string, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		probe, err := net.Dial("unix", path)
		if err != nil {
			return true
		}
		probe.Close()
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond) // the other process's exit, which nothing here can wait on
	}
}

// exit removes the socket and ends the process.
func (g *guardPlugin) exit(code int) {
	if g.ln != nil {
		g.ln.Close() // a unix listener removes its socket file
	}
	os.Exit(code)
}

// serve accepts Hearths, one at a time.
func (g *guardPlugin) serve() {
	for {
		conn, err := g.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				log.Printf("hearth invoice guard: %v", err)
			}
			return
		}
		go g.handle(conn)
	}
}

// handle greets a Hearth and reads its answers until it leaves; a second
// one is told the guard is held and sent away.
func (g *guardPlugin) handle(conn net.Conn) {
	defer conn.Close()
	c := &guardConn{conn: conn, enc: json.NewEncoder(conn), waiting: map[uint64]chan bool{}}
	g.mu.Lock()
	taken := g.hearth != nil
	if !taken {
		g.hearth = c
	}
	g.mu.Unlock()
	if taken {
		_ = c.send(guardHello{Guard: guardProtocol, Version: guardVersion, Error: "another Hearth holds the invoice guard"})
		return
	}
	log.Printf("hearth invoice guard: Hearth connected")
	defer g.leave(c)
	if c.send(guardHello{Guard: guardProtocol, Version: guardVersion}) != nil {
		return
	}
	dec := json.NewDecoder(bufio.NewReader(conn))
	for {
		var a guardAnswer
		if err := dec.Decode(&a); err != nil {
			return
		}
		g.mu.Lock()
		ch := c.waiting[a.ID]
		delete(c.waiting, a.ID)
		g.mu.Unlock()
		if ch != nil {
			ch <- a.Accept
		}
	}
}

// leave forgets c: its questions waiting are let through.
func (g *guardPlugin) leave(c *guardConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hearth == c {
		g.hearth = nil
	}
	for id, ch := range c.waiting {
		close(ch)
		delete(c.waiting, id)
	}
	log.Printf("hearth invoice guard: Hearth left; payments are accepted as without a guard")
}

// send writes one line to Hearth.
func (c *guardConn) send(v any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(guardAskTimeout))
	if err := c.enc.Encode(v); err != nil {
		c.conn.Close() // the reader ends, and leave lets its questions through
		return fmt.Errorf("hearth invoice guard: %w", err)
	}
	return nil
}

// invoicePayment is the invoice_payment hook: a payment to one of
// Hearth's invoices is accepted only if Hearth, when connected, says so.
func (g *guardPlugin) invoicePayment(c *pluginCall) (any, error) {
	var p struct {
		Label string `json:"label"`
	}
	if err := json.Unmarshal(c.Payment, &p); err != nil {
		return nil, fmt.Errorf("hearth invoice guard: the payment: %w", err)
	}
	hash, ok := strings.CutPrefix(p.Label, labelPrefix)
	if !ok || g.ask(hash) {
		return map[string]string{"result": "continue"}, nil
	}
	return map[string]string{"result": "reject"}, nil
}

// ask asks the connected Hearth whether lightningd may accept a payment
// to the invoice of hash; without an answer, it may.
func (g *guardPlugin) ask(hash string) bool {
	g.mu.Lock()
	c := g.hearth
	if c == nil {
		g.mu.Unlock()
		return true
	}
	g.next++
	id := g.next
	ch := make(chan bool, 1)
	c.waiting[id] = ch
	g.mu.Unlock()
	if c.send(guardQuestion{ID: id, PaymentHash: hash}) != nil {
		return true
	}
	t := time.NewTimer(guardAskTimeout)
	defer t.Stop()
	select {
	case accept, answered := <-ch:
		return !answered || accept
	case <-t.C:
		g.mu.Lock()
		delete(c.waiting, id)
		g.mu.Unlock()
		log.Printf("hearth invoice guard: no answer for %s in %s; the payment is accepted", hash, guardAskTimeout)
		return true
	}
}
