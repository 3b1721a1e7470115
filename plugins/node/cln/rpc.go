package cln

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync/atomic"

	"github.com/elementsproject/glightning/jrpc2"
)

// The JSON-RPC transport. glightning's jrpc2 frames the requests (the
// method's fields as named params) and reads the answers and their errors;
// each call has its own connection to the socket, as lightning-cli does,
// so that a call ends with its context (the connection is closed: a
// payment goes on at the node, and the caller asks after it) and a node
// that restarts costs one failed call, not a broken client. glightning's
// own Client is not used: it has no contexts and its shutdown is not safe
// for concurrent use.

// seq numbers the requests, for the node's logs.
var seq atomic.Int64

// RPCError is an error lightningd answered: the call reached the node and
// the node refused it.
type RPCError = jrpc2.RpcError

// call runs method at the node and decodes its result into out.
func (n *Node) call(ctx context.Context, m jrpc2.Method, out any) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", n.path)
	if err != nil {
		return fmt.Errorf("cln %s: %w", m.Name(), err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	req, err := json.Marshal(&jrpc2.Request{Id: jrpc2.NewIdAsInt(seq.Add(1)), Method: m})
	if err != nil {
		return fmt.Errorf("cln %s: %w", m.Name(), err)
	}
	if _, err := conn.Write(req); err != nil {
		return n.lost(ctx, m, err)
	}
	var res jrpc2.RawResponse
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&res); err != nil {
		return n.lost(ctx, m, err)
	}
	if res.Error != nil {
		return fmt.Errorf("cln %s: %w", m.Name(), res.Error)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res.Raw, out); err != nil {
		return fmt.Errorf("cln %s: reading the answer: %w", m.Name(), err)
	}
	return nil
}

// ErrConnectionLost is a call whose answer never came: whether the node
// ran it is unknown.
var ErrConnectionLost = errors.New("connection to the node lost mid-call")

func (n *Node) lost(ctx context.Context, m jrpc2.Method, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("cln %s: %w", m.Name(), context.Cause(ctx))
	}
	return fmt.Errorf("cln %s: %w (%v)", m.Name(), ErrConnectionLost, err)
}

// rpcCode returns the code of the node's error in err, and whether there
// is one.
func rpcCode(err error) (int, bool) {
	var e *RPCError
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}
