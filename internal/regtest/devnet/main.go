// Command devnet (`make devnet`) starts the regtest Lightning network of
// Hearth's tests for a person: btcd, Hearth's lnd and an outside peer with a
// channel between them. It prints the HEARTH_* settings that point `hearth
// serve` at Hearth's node and the lncli commands that act as the peer, then
// runs until interrupted, and stops everything (lnd before btcd).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hearthwallet/hearth/internal/regtest"
)

func main() {
	dir := flag.String("dir", "", "keep the network's data in this folder (default: a temporary folder, removed at exit)")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "devnet:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	startCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	net, err := regtest.Start(startCtx, regtest.Options{Dir: dir, Log: os.Stderr})
	if err != nil {
		return err
	}
	if dir == "" {
		defer net.Remove()
	} else {
		defer net.Close()
	}
	bin, _ := regtest.Binaries()
	peer := fmt.Sprintf("%s --lnddir=%s --rpcserver=%s --network=regtest", filepath.Join(bin, "lncli"), net.Peer.Dir, net.Peer.RPCAddress)
	btcctl := fmt.Sprintf("%s --configfile=%s --regtest --rpcserver=%s --rpcuser=%s --rpcpass=%s --rpccert=%s",
		filepath.Join(bin, "btcctl"), net.Btcd.ConfigFile, net.Btcd.RPCAddress, net.Btcd.RPCUser, net.Btcd.RPCPass, net.Btcd.RPCCert)
	fmt.Printf(`
The regtest network is up (data in %s).

Point Hearth at its node, in another shell:

  export HEARTH_NODE_BACKEND=lnd
  export HEARTH_NODE_LND_ADDRESS=%s
  export HEARTH_NODE_LND_TLS_CERT=%s
  export HEARTH_NODE_LND_MACAROON=%s
  ./bin/hearth serve

Act as the outside peer (it has %d sat of outbound liquidity towards Hearth):

  %s payinvoice --force <bolt11 from POST /v1/me/invoices>
  %s addinvoice --amt 1000 --memo coffee      # then POST /v1/me/payments {"input":"<payment_request>"}

On-chain, as the peer:

  %s sendcoins --addr <address from POST /v1/me/bitcoin/address> --amt 100000
  %s newaddress p2wkh                          # then POST /v1/me/payments {"input":"<address>","amount_msat":50000000}

Mine blocks (a deposit is credited, a spend settled, at its first confirmation):  %s generate 1

Ctrl-C stops the network.
`, net.Dir, net.Hearth.RPCAddress, net.Hearth.TLSCertPath(), net.Hearth.MacaroonPath(), regtest.PushSat, peer, peer, peer, peer, btcctl)
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "devnet: stopping")
	return nil
}
