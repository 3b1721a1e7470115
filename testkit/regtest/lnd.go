package regtest

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
	"github.com/lightningnetwork/lnd/lnrpc/invoicesrpc"
	"github.com/lightningnetwork/lnd/lnrpc/routerrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	macaroonpb "gopkg.in/macaroon.v2"
)

// Node is one lnd process of the network.
type Node struct {
	// Name is "hearth" or "peer".
	Name string
	// Dir is the node's lnddir.
	Dir string
	// RPCAddress is the gRPC host:port; P2PAddress the Lightning one.
	RPCAddress, P2PAddress string
	// Pubkey is the node's identity key, hex.
	Pubkey string

	bin  string
	args []string

	mu       sync.Mutex
	p        *process
	conn     *grpc.ClientConn
	ln       lnrpc.LightningClient
	router   routerrpc.RouterClient
	invoices invoicesrpc.InvoicesClient
}

// newNode starts an lnd on free loopback ports, following the chain that
// chainArgs name (Btcd.lndArgs, Bitcoind.lndArgs).
func newNode(ctx context.Context, bin, name, root string, chainArgs []string) (*Node, error) {
	rpc, err := freePort()
	if err != nil {
		return nil, err
	}
	p2p, err := freePort()
	if err != nil {
		return nil, err
	}
	n := &Node{
		Name:       name,
		Dir:        filepath.Join(root, name),
		RPCAddress: "127.0.0.1:" + strconv.Itoa(rpc),
		P2PAddress: "127.0.0.1:" + strconv.Itoa(p2p),
		bin:        bin,
	}
	n.args = []string{
		"--lnddir=" + n.Dir,
		"--noseedbackup",
		"--bitcoin.regtest",
		"--rpclisten=" + n.RPCAddress,
		"--listen=" + n.P2PAddress,
		"--norest",
		"--nobootstrap",
		"--alias=" + name,
		"--debuglevel=info",
		"--trickledelay=50",
		"--maxpendingchannels=10",
		"--accept-keysend",
	}
	n.args = append(n.args, chainArgs...)
	if err := os.MkdirAll(n.Dir, 0o700); err != nil {
		return nil, err
	}
	return n, n.Restart(ctx)
}

// TLSCertPath and MacaroonPath are what a client of the node needs.
func (n *Node) TLSCertPath() string { return filepath.Join(n.Dir, "tls.cert") }

// MacaroonPath is the node's admin macaroon.
func (n *Node) MacaroonPath() string {
	return filepath.Join(n.Dir, "data", "chain", "bitcoin", "regtest", "admin.macaroon")
}

// Restart starts the node (again, on the same folder and ports) and waits
// until it answers and is synced to the chain.
func (n *Node) Restart(ctx context.Context) error {
	n.mu.Lock()
	if n.p != nil && n.p.running() {
		n.mu.Unlock()
		return fmt.Errorf("lnd %s is running", n.Name)
	}
	p := &process{name: "lnd " + n.Name, path: filepath.Join(n.bin, "lnd"), args: n.args, logPath: filepath.Join(n.Dir, "lnd.log")}
	n.p = p
	n.mu.Unlock()
	if err := p.start(); err != nil {
		return err
	}
	return poll(ctx, 60*time.Second, "lnd "+n.Name+" to answer", func(ctx context.Context) error {
		if err := p.exited(); err != nil {
			return err
		}
		if err := n.dial(); err != nil {
			return err
		}
		info, err := n.ln.GetInfo(ctx, &lnrpc.GetInfoRequest{})
		if err != nil {
			return err
		}
		if !info.SyncedToChain {
			return errors.New("not synced to chain")
		}
		n.Pubkey = info.IdentityPubkey
		return nil
	})
}

// dial connects the test client once the node wrote its certificate and
// macaroon.
func (n *Node) dial() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != nil {
		return nil
	}
	creds, err := credentials.NewClientTLSFromFile(n.TLSCertPath(), "")
	if err != nil {
		return err
	}
	mac, err := os.ReadFile(n.MacaroonPath())
	if err != nil {
		return err
	}
	// lnd may be writing the file: a connection made with what it holds
	// so far would fail every call for good (empty macaroon data).
	if err := new(macaroonpb.Macaroon).UnmarshalBinary(mac); err != nil {
		return fmt.Errorf("the admin macaroon is not whole yet: %w", err)
	}
	conn, err := grpc.NewClient(n.RPCAddress, grpc.WithTransportCredentials(creds),
		grpc.WithPerRPCCredentials(macaroon(hex.EncodeToString(mac))))
	if err != nil {
		return err
	}
	n.conn = conn
	n.ln = lnrpc.NewLightningClient(conn)
	n.router = routerrpc.NewRouterClient(conn)
	n.invoices = invoicesrpc.NewInvoicesClient(conn)
	return nil
}

// Kill ends the node at once (SIGKILL), as a crash would.
func (n *Node) Kill() {
	n.mu.Lock()
	p := n.p
	n.mu.Unlock()
	p.kill()
}

// Stop shuts the node down cleanly and closes the test client.
func (n *Node) Stop() {
	n.mu.Lock()
	p, conn := n.p, n.conn
	n.conn = nil
	n.mu.Unlock()
	if p != nil {
		p.stop(30 * time.Second)
	}
	if conn != nil {
		conn.Close()
	}
}

func (n *Node) proc() *process {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.p
}

// macaroon sends the macaroon with every call.
type macaroon string

func (m macaroon) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"macaroon": string(m)}, nil
}

func (m macaroon) RequireTransportSecurity() bool { return true }
