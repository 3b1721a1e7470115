// Package clntest is a test double of a Core Lightning node, for the tests
// of the cln backend and of a server configured with it that need what a
// real lightningd cannot be made to do on demand: a socket closed in the
// middle of a call, a broadcast refused, malformed or drifting answers,
// a node that dies and comes back at a chosen moment. The backend's
// contract also runs on a real lightningd (testkit/regtest), and the
// double's answers are held to a real node's by
// plugins/node/cln's TestDoubleAnswersAsLightningd.
//
// It listens on a real unix socket and speaks lightningd's JSON-RPC 2.0
// framing (a stream of JSON requests; each answer a JSON object followed
// by "\n\n"), holds every request to the method's schema as lightningd
// does (schema.go) and records each rejection, so a backend that calls a
// method wrongly fails its test even when it swallows the error. Its
// answers follow the response schemas of the same version. It scripts what
// a node and the network around it do: a peer paying the node's invoices,
// payments succeeding, failing or held by the payee, the socket closing in
// the middle of a call, and the node going away and coming back with its
// state (Kill, Restart).
package clntest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
)

// Node is the double. Its methods are safe for concurrent use.
type Node struct {
	path string

	mu        sync.Mutex
	ln        net.Listener
	conns     map[net.Conn]struct{}
	changed   chan struct{} // closed and replaced on every state change
	closeNext map[string]int
	rejected  []string
	calls     map[string]int
	state
}

// Start starts a double listening at a new socket in a temporary
// directory of t; it stops at the end of the test.
func Start(t testing.TB) *Node {
	t.Helper()
	dir, err := os.MkdirTemp("", "cln")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	n, err := New(filepath.Join(dir, "lightning-rpc"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Kill)
	return n
}

// New starts a double listening at path.
func New(path string) (*Node, error) {
	nodeKey, err := btcec.NewPrivateKey()
	if err != nil {
		return nil, err
	}
	peerKey, err := btcec.NewPrivateKey()
	if err != nil {
		return nil, err
	}
	routerKey, err := btcec.NewPrivateKey()
	if err != nil {
		return nil, err
	}
	n := &Node{
		path:      path,
		conns:     map[net.Conn]struct{}{},
		changed:   make(chan struct{}),
		closeNext: map[string]int{},
		calls:     map[string]int{},
		state:     newState(nodeKey, peerKey, routerKey),
	}
	n.initialTx()
	if err := n.Restart(); err != nil {
		return nil, err
	}
	return n, nil
}

// Path is the socket's path: node.cln.rpc_file.
func (n *Node) Path() string { return n.path }

// Kill stops the node: the socket goes away and every connection closes
// in the middle of whatever it was doing. Payments in flight stay in
// flight, as HTLCs do while their node is down.
func (n *Node) Kill() {
	n.mu.Lock()
	ln := n.ln
	n.ln = nil
	for c := range n.conns {
		c.Close()
	}
	n.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
}

// Restart brings a killed node back, with its invoices and payments.
func (n *Node) Restart() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ln != nil {
		return nil
	}
	os.Remove(n.path)
	ln, err := net.Listen("unix", n.path)
	if err != nil {
		return fmt.Errorf("cln double: %w", err)
	}
	n.ln = ln
	go n.accept(ln)
	return nil
}

// CloseNext makes the next call of method lose its connection before it
// runs: the caller sees the socket close mid-call.
func (n *Node) CloseNext(method string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closeNext[method]++
}

// Rejected returns the requests the double refused as lightningd would
// (unknown method or parameter, missing parameter, wrong type), each as
// "method: message".
func (n *Node) Rejected() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.rejected...)
}

// Calls returns how many valid calls of method the double answered or
// began.
func (n *Node) Calls(method string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls[method]
}

func (n *Node) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		n.mu.Lock()
		if n.ln != ln {
			n.mu.Unlock()
			c.Close()
			return
		}
		n.conns[c] = struct{}{}
		n.mu.Unlock()
		go n.serve(c)
	}
}

// request is a JSON-RPC 2.0 request as lightningd reads it.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// serve reads the requests of one connection, runs each in its own
// goroutine (a wait must not hold up the others), and writes each answer
// followed by "\n\n".
func (n *Node) serve(c net.Conn) {
	var wmu sync.Mutex
	var wg sync.WaitGroup
	defer func() {
		c.Close()
		wg.Wait()
		n.mu.Lock()
		delete(n.conns, c)
		n.mu.Unlock()
	}()
	gone := make(chan struct{})
	defer close(gone)
	dec := json.NewDecoder(bufio.NewReader(c))
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			return
		}
		if n.takeCloseNext(req.Method) {
			return
		}
		wg.Go(func() {
			res, rerr := n.handle(req, gone)
			if errors.Is(rerr, errGone) {
				return
			}
			out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
			if rerr != nil {
				var e *rpcError
				if !errors.As(rerr, &e) {
					e = &rpcError{Code: -1, Message: rerr.Error()}
				}
				out["error"] = e
			} else {
				out["result"] = res
			}
			// A result may point into the node's state (its invoices),
			// which payments change under n.mu: encoded under it too.
			n.mu.Lock()
			data, err := json.Marshal(out)
			n.mu.Unlock()
			if err != nil {
				panic(err)
			}
			wmu.Lock()
			defer wmu.Unlock()
			c.Write(append(data, '\n', '\n')) //nolint:errcheck // a closed connection is the caller's loss
		})
	}
}

func (n *Node) takeCloseNext(method string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closeNext[method] > 0 {
		n.closeNext[method]--
		return true
	}
	return false
}

// errGone: the connection closed before the answer.
var errGone = errors.New("connection gone")

// handle checks req against its schema and runs it.
func (n *Node) handle(req request, gone <-chan struct{}) (any, error) {
	if req.JSONRPC != "2.0" || len(req.ID) == 0 {
		return nil, &rpcError{Code: -32600, Message: "Expected jsonrpc 2.0 request with an id"}
	}
	params, perr := checkParams(req.Method, req.Params)
	n.mu.Lock()
	if perr != nil {
		n.rejected = append(n.rejected, req.Method+": "+perr.Message)
		n.mu.Unlock()
		return nil, perr
	}
	n.calls[req.Method]++
	n.mu.Unlock()
	return n.run(req.Method, args(params), gone)
}

// notify wakes everything waiting on the state; n.mu is held.
func (n *Node) notify() {
	close(n.changed)
	n.changed = make(chan struct{})
}
