package regtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Bitcoind is the regtest chain of the Core Lightning network: Bitcoin
// Core without a wallet, listening to nobody, its RPC on a free loopback
// port. Blocks are mined with generatetoaddress.
type Bitcoind struct {
	// Dir is the data folder; RPCPort, RPCUser and RPCPass reach its RPC.
	Dir              string
	RPCPort          int
	RPCUser, RPCPass string

	bin  string
	proc *process
}

// startBitcoind starts bitcoind in dir and waits until its RPC answers.
func startBitcoind(ctx context.Context, bin, dir string) (*Bitcoind, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	b := &Bitcoind{Dir: dir, RPCPort: port, RPCUser: "hearth", RPCPass: "hearth", bin: bin}
	// bitcoind reads the network's options only from its section.
	conf := fmt.Sprintf(`regtest=1
[regtest]
server=1
listen=0
dnsseed=0
fixedseeds=0
connect=0
discover=0
listenonion=0
txindex=1
printtoconsole=0
rpcbind=127.0.0.1
rpcallowip=127.0.0.1
rpcport=%d
rpcuser=%s
rpcpassword=%s
rpcservertimeout=600
`, port, b.RPCUser, b.RPCPass)
	if err := os.WriteFile(filepath.Join(dir, "bitcoin.conf"), []byte(conf), 0o600); err != nil {
		return nil, err
	}
	return b, b.start(ctx)
}

func (b *Bitcoind) start(ctx context.Context) error {
	b.proc = &process{name: "bitcoind", path: filepath.Join(b.bin, "bitcoind"), args: []string{"-datadir=" + b.Dir},
		logPath: filepath.Join(b.Dir, "bitcoind.out")}
	if err := b.proc.start(); err != nil {
		return err
	}
	return poll(ctx, 60*time.Second, "bitcoind RPC", func(ctx context.Context) error {
		if err := b.proc.exited(); err != nil {
			return err
		}
		_, err := b.Height(ctx)
		return err
	})
}

func (b *Bitcoind) stop() {
	if b != nil {
		b.proc.stop(30 * time.Second)
	}
}

// lndArgs are the options of an lnd that follows bitcoind by polling its
// RPC (this bitcoind has no ZMQ).
func (b *Bitcoind) lndArgs() []string {
	return []string{
		"--bitcoin.node=bitcoind",
		"--bitcoind.rpchost=" + b.RPCAddress(),
		"--bitcoind.rpcuser=" + b.RPCUser,
		"--bitcoind.rpcpass=" + b.RPCPass,
		"--bitcoind.rpcpolling",
		"--bitcoind.blockpollinginterval=200ms",
		"--bitcoind.txpollinginterval=200ms",
	}
}

// RPCAddress is the RPC's host:port.
func (b *Bitcoind) RPCAddress() string { return "127.0.0.1:" + strconv.Itoa(b.RPCPort) }

// Call runs method with params and decodes its result into out (if not nil).
func (b *Bitcoind) Call(ctx context.Context, out any, method string, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+b.RPCAddress()+"/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.SetBasicAuth(b.RPCUser, b.RPCPass)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("bitcoind %s: %w", method, err)
	}
	defer res.Body.Close()
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&answer); err != nil {
		return fmt.Errorf("bitcoind %s: HTTP %d: %w", method, res.StatusCode, err)
	}
	if answer.Error != nil {
		return fmt.Errorf("bitcoind %s: %s (%d)", method, answer.Error.Message, answer.Error.Code)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer.Result, out); err != nil {
		return fmt.Errorf("bitcoind %s: reading the answer: %w", method, err)
	}
	return nil
}

// Height returns the chain's height.
func (b *Bitcoind) Height(ctx context.Context) (int64, error) {
	var h int64
	err := b.Call(ctx, &h, "getblockcount")
	return h, err
}

// GenerateTo mines blocks paying their coinbases to addr and returns the
// new height.
func (b *Bitcoind) GenerateTo(ctx context.Context, blocks int, addr string) (int64, error) {
	for blocks > 0 {
		n := min(blocks, 100)
		if err := b.Call(ctx, nil, "generatetoaddress", n, addr); err != nil {
			return 0, err
		}
		blocks -= n
	}
	return b.Height(ctx)
}

// Mempool returns the ids of the transactions in the mempool.
func (b *Bitcoind) Mempool(ctx context.Context) ([]string, error) {
	var ids []string
	err := b.Call(ctx, &ids, "getrawmempool")
	return ids, err
}

// Confirmations returns how many blocks confirm txid (0 in the mempool).
func (b *Bitcoind) Confirmations(ctx context.Context, txid string) (int64, error) {
	var tx struct {
		Confirmations int64 `json:"confirmations"`
	}
	err := b.Call(ctx, &tx, "getrawtransaction", txid, true)
	return tx.Confirmations, err
}

// InvalidateTip reorganises the best block away: its transactions go back
// to the mempool. It returns the height invalidated.
func (b *Bitcoind) InvalidateTip(ctx context.Context) (int64, error) {
	var best string
	if err := b.Call(ctx, &best, "getbestblockhash"); err != nil {
		return 0, err
	}
	h, err := b.Height(ctx)
	if err != nil {
		return 0, err
	}
	return h, b.Call(ctx, nil, "invalidateblock", best)
}
