package regtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/btcsuite/btcd/rpcclient"
)

// Btcd is the regtest chain.
type Btcd struct {
	// RPCAddress is btcd's RPC host:port; RPCUser and RPCPass log in.
	RPCAddress, RPCUser, RPCPass string
	// RPCCert is the path of btcd's RPC certificate.
	RPCCert string
	// Dir is btcd's folder; ConfigFile its (empty) configuration file.
	Dir, ConfigFile string

	bin  string
	proc *process
}

// startBtcd starts btcd on a free loopback port; miningAddr may be empty.
func startBtcd(ctx context.Context, bin, dir, miningAddr string) (*Btcd, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	b := &Btcd{
		RPCAddress: "127.0.0.1:" + strconv.Itoa(port),
		RPCUser:    "hearth",
		RPCPass:    "hearth",
		RPCCert:    filepath.Join(dir, "rpc.cert"),
		Dir:        dir,
		ConfigFile: filepath.Join(dir, "btcd.conf"),
		bin:        bin,
	}
	// An empty configuration file of its own keeps btcd away from ~/.btcd.
	if err := os.WriteFile(b.ConfigFile, nil, 0o600); err != nil {
		return nil, err
	}
	return b, b.start(ctx, miningAddr)
}

func (b *Btcd) start(ctx context.Context, miningAddr string) error {
	args := []string{
		"--regtest",
		"--configfile=" + b.ConfigFile,
		"--datadir=" + filepath.Join(b.Dir, "data"),
		"--logdir=" + filepath.Join(b.Dir, "logs"),
		"--rpclisten=" + b.RPCAddress,
		"--rpcuser=" + b.RPCUser,
		"--rpcpass=" + b.RPCPass,
		"--rpccert=" + b.RPCCert,
		"--rpckey=" + filepath.Join(b.Dir, "rpc.key"),
		"--nolisten",
		"--txindex",
		"--debuglevel=info",
	}
	if miningAddr != "" {
		args = append(args, "--miningaddr="+miningAddr)
	}
	b.proc = &process{name: "btcd", path: filepath.Join(b.bin, "btcd"), args: args, logPath: filepath.Join(b.Dir, "btcd.log")}
	if err := b.proc.start(); err != nil {
		return err
	}
	return poll(ctx, 30*time.Second, "btcd RPC", func(context.Context) error {
		if err := b.proc.exited(); err != nil {
			return err
		}
		_, err := b.height()
		return err
	})
}

// restart restarts btcd on the same folder and port, mining to miningAddr
// (btcd has no generatetoaddress; its mining address is a flag).
func (b *Btcd) restart(ctx context.Context, miningAddr string) error {
	b.proc.stop(20 * time.Second)
	return b.start(ctx, miningAddr)
}

// lndArgs are the options of an lnd that follows btcd.
func (b *Btcd) lndArgs() []string {
	return []string{
		"--bitcoin.node=btcd",
		"--btcd.rpchost=" + b.RPCAddress,
		"--btcd.rpcuser=" + b.RPCUser,
		"--btcd.rpcpass=" + b.RPCPass,
		"--btcd.rpccert=" + b.RPCCert,
	}
}

func (b *Btcd) stop() { b.proc.stop(20 * time.Second) }

func (b *Btcd) client() (*rpcclient.Client, error) {
	cert, err := os.ReadFile(b.RPCCert)
	if err != nil {
		return nil, err
	}
	return rpcclient.New(&rpcclient.ConnConfig{
		Host:         b.RPCAddress,
		User:         b.RPCUser,
		Pass:         b.RPCPass,
		Certificates: cert,
		HTTPPostMode: true,
	}, nil)
}

func (b *Btcd) height() (int64, error) {
	c, err := b.client()
	if err != nil {
		return 0, err
	}
	defer c.Shutdown()
	return c.GetBlockCount()
}

// generate mines blocks to the mining address and returns the new height.
func (b *Btcd) generate(ctx context.Context, blocks int) (int64, error) {
	c, err := b.client()
	if err != nil {
		return 0, err
	}
	defer c.Shutdown()
	for blocks > 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		batch := min(blocks, 100)
		if _, err := c.Generate(uint32(batch)); err != nil {
			return 0, fmt.Errorf("mining %d blocks: %w", batch, err)
		}
		blocks -= batch
	}
	return c.GetBlockCount()
}
