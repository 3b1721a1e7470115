package regtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// CLNNode is one lightningd of the Core Lightning network.
type CLNNode struct {
	// Name is "hearth" or "peer".
	Name string
	// Dir is the node's lightning-dir; P2PAddress its Lightning host:port.
	Dir, P2PAddress string
	// Pubkey is the node's identity key, hex.
	Pubkey string

	bin  string
	args []string

	mu sync.Mutex
	p  *process
}

// newCLNNode starts a lightningd following b, on a free loopback port.
func newCLNNode(ctx context.Context, bin, name, root string, b *Bitcoind) (*CLNNode, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	n := &CLNNode{Name: name, Dir: filepath.Join(root, "cln-"+name), P2PAddress: "127.0.0.1:" + strconv.Itoa(port), bin: bin}
	n.args = []string{
		"--lightning-dir=" + n.Dir,
		"--network=regtest",
		"--bitcoin-cli=" + filepath.Join(bin, "bitcoin-cli"),
		"--bitcoin-datadir=" + b.Dir,
		"--bitcoin-rpcconnect=127.0.0.1",
		"--bitcoin-rpcport=" + strconv.Itoa(b.RPCPort),
		"--bitcoin-rpcuser=" + b.RPCUser,
		"--bitcoin-rpcpassword=" + b.RPCPass,
		"--bind-addr=" + n.P2PAddress,
		"--alias=" + name,
		"--log-file=" + filepath.Join(n.Dir, "log"),
		"--log-level=debug",
		"--developer",
		"--dev-bitcoind-poll=1",
		"--dev-fast-gossip",
	}
	if err := os.MkdirAll(n.Dir, 0o700); err != nil {
		return nil, err
	}
	return n, n.Restart(ctx)
}

// RPCPath is the node's JSON-RPC socket, what Hearth's backend dials.
func (n *CLNNode) RPCPath() string { return filepath.Join(n.Dir, "regtest", "lightning-rpc") }

// Restart starts the node (again, on the same folder and port) and waits
// until it answers and has caught up with bitcoind.
func (n *CLNNode) Restart(ctx context.Context) error { return n.RestartWith(ctx) }

// RestartWith is Restart with extra arguments for this start only (a
// plugin lightningd loads at its start, say).
func (n *CLNNode) RestartWith(ctx context.Context, extra ...string) error {
	n.mu.Lock()
	if n.p != nil && n.p.running() {
		n.mu.Unlock()
		return fmt.Errorf("lightningd %s is running", n.Name)
	}
	// lightningd's output besides its log file: a failure to start.
	p := &process{name: "lightningd " + n.Name, path: filepath.Join(n.bin, "lightningd"), args: append(slices.Clone(n.args), extra...), logPath: filepath.Join(n.Dir, "lightningd.out")}
	n.p = p
	n.mu.Unlock()
	// HOME elsewhere: nothing of ~/.lightning is read.
	if err := p.startEnv(append(os.Environ(), "HOME="+n.Dir)); err != nil {
		return err
	}
	return poll(ctx, 60*time.Second, "lightningd "+n.Name+" to answer", func(ctx context.Context) error {
		if err := p.exited(); err != nil {
			return err
		}
		var info struct {
			ID                    string `json:"id"`
			WarningBitcoindSync   string `json:"warning_bitcoind_sync"`
			WarningLightningdSync string `json:"warning_lightningd_sync"`
		}
		if err := n.Call(ctx, &info, "getinfo", nil); err != nil {
			return err
		}
		if info.WarningBitcoindSync != "" || info.WarningLightningdSync != "" {
			return errors.New(info.WarningBitcoindSync + info.WarningLightningdSync)
		}
		n.Pubkey = info.ID
		return nil
	})
}

// Kill ends the node at once (SIGKILL), as a crash would.
func (n *CLNNode) Kill() {
	n.mu.Lock()
	p := n.p
	n.mu.Unlock()
	p.kill()
}

// Stop shuts the node down (SIGINT, then SIGKILL after 30 s).
func (n *CLNNode) Stop() {
	n.mu.Lock()
	p := n.p
	n.mu.Unlock()
	if p != nil {
		p.stop(30 * time.Second)
	}
}

func (n *CLNNode) proc() *process {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.p
}

// logPath is lightningd's own log.
func (n *CLNNode) logPath() string { return filepath.Join(n.Dir, "log") }

var clnSeq atomic.Int64

// CLNError is an error lightningd answered.
type CLNError struct {
	Method  string
	Code    int
	Message string
}

func (e *CLNError) Error() string {
	return fmt.Sprintf("lightningd %s: %s (%d)", e.Method, e.Message, e.Code)
}

// Call runs method with params (an object of named parameters, or nil) on
// the node's socket and decodes its result into out (if not nil).
func (n *CLNNode) Call(ctx context.Context, out any, method string, params map[string]any) error {
	if err := CallSocket(ctx, n.RPCPath(), out, method, params); err != nil {
		return fmt.Errorf("%s: %w", n.Name, err)
	}
	return nil
}

// CallSocket runs method with params on the lightningd JSON-RPC socket at
// path and decodes its result into out (if not nil). An error lightningd
// answered is a *CLNError.
func CallSocket(ctx context.Context, path string, out any, method string, params map[string]any) error {
	if params == nil {
		params = map[string]any{}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("lightningd %s: %w", method, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": clnSeq.Add(1), "method": method, "params": params})
	if err != nil {
		return err
	}
	if _, err := conn.Write(req); err != nil {
		return fmt.Errorf("lightningd %s: %w", method, err)
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&answer); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("lightningd %s: %w", method, err)
	}
	if answer.Error != nil {
		return &CLNError{Method: method, Code: answer.Error.Code, Message: answer.Error.Message}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer.Result, out); err != nil {
		return fmt.Errorf("lightningd %s: reading the answer: %w", method, err)
	}
	return nil
}
