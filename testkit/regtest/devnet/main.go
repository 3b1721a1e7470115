// Command devnet (`make devnet`) starts a regtest Lightning network of
// Hearth's tests for a person, prints the HEARTH_* settings that point
// `hearth serve` at Hearth's node and the commands that act as the outside
// peers, then runs until interrupted and stops everything (the nodes
// before the chain).
//
// With -backend lnd (the default) it is btcd, Hearth's lnd and an outside
// lnd with a channel between them. With -backend cln
// (`DEVNET_BACKEND=cln make devnet`) it is the Core Lightning network:
// bitcoind, Hearth's lightningd, an outside lightningd and an outside lnd,
// with a channel from Hearth's node to each. DEVNET_BACKEND is the flag's
// default.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/hearthwallet/hearth/testkit/regtest"
)

func main() {
	dir := flag.String("dir", "", "keep the network's data in this folder (default: a temporary folder, removed at exit)")
	backend := flag.String("backend", envOr("DEVNET_BACKEND", "lnd"), "Hearth's node: lnd, or cln (Core Lightning); default $DEVNET_BACKEND, else lnd")
	flag.Parse()
	if err := run(*backend, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "devnet:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(backend, dir string) error {
	if backend != "lnd" && backend != "cln" {
		return fmt.Errorf("unknown backend %q (lnd or cln)", backend)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
	}
	startCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	opts := regtest.Options{Dir: dir, Log: os.Stderr}
	if backend == "cln" {
		net, err := regtest.StartCLN(startCtx, opts)
		if err != nil {
			return fmt.Errorf("starting the Core Lightning network: %w", err)
		}
		if dir == "" {
			defer net.Remove()
		} else {
			defer net.Close()
		}
		printCLN(os.Stdout, net)
	} else {
		net, err := regtest.Start(startCtx, opts)
		if err != nil {
			return fmt.Errorf("starting the lnd network: %w", err)
		}
		if dir == "" {
			defer net.Remove()
		} else {
			defer net.Close()
		}
		printLND(os.Stdout, net)
	}
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "devnet: stopping")
	return nil
}

// printLND says how to use the lnd network.
func printLND(w io.Writer, net *regtest.Network) {
	peer := shellJoin(net.Peer.CLI())
	bin, _ := regtest.Binaries() // Start found them
	btcctl := shellJoin([]string{filepath.Join(bin, "btcctl"), "--configfile=" + net.Btcd.ConfigFile, "--regtest", "--rpcserver=" + net.Btcd.RPCAddress,
		"--rpcuser=" + net.Btcd.RPCUser, "--rpcpass=" + net.Btcd.RPCPass, "--rpccert=" + net.Btcd.RPCCert})
	fmt.Fprintf(w, `
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
`, shellQuote(net.Dir), shellQuote(net.Hearth.RPCAddress), shellQuote(net.Hearth.TLSCertPath()), shellQuote(net.Hearth.MacaroonPath()),
		regtest.PushSat, peer, peer, peer, peer, btcctl)
}

// printCLN says how to use the Core Lightning network.
func printCLN(w io.Writer, net *regtest.CLNNetwork) {
	peer := shellJoin(net.Peer.CLI())
	lncli := shellJoin(net.LND.CLI())
	btc := shellJoin(net.Bitcoind.CLI())
	fmt.Fprintf(w, `
The Core Lightning regtest network is up (data in %s).

Point Hearth at its lightningd, in another shell:

  export HEARTH_NODE_BACKEND=cln
  export HEARTH_NODE_CLN_RPC_FILE=%s
  ./bin/hearth serve

Hearth's lightningd has a channel to each outside peer, which has %d sat of
outbound liquidity towards Hearth.

Act as the outside lightningd:

  %s xpay <bolt11 from POST /v1/me/invoices>
  %s invoice 1000000 coffee-1 coffee      # msat, a label of its own, a description; then POST /v1/me/payments {"input":"<bolt11>"}

Act as the outside lnd:

  %s payinvoice --force <bolt11 from POST /v1/me/invoices>
  %s addinvoice --amt 1000 --memo coffee      # then POST /v1/me/payments {"input":"<payment_request>"}

On-chain, as the outside lightningd:

  %s withdraw <address from POST /v1/me/bitcoin/address> 100000
  %s newaddr bech32                   # then POST /v1/me/payments {"input":"<bech32>","amount_msat":50000000}

Mine blocks (a deposit is credited, a spend settled, at its first confirmation):

  %s generatetoaddress 1 %s

Hearth's own lightningd, to look: %s getinfo

Ctrl-C stops the network.
`, shellQuote(net.Dir), shellQuote(net.Hearth.RPCPath()), regtest.PushSat, peer, peer, lncli, lncli, peer, peer,
		btc, net.MinerAddress(), shellJoin(net.Hearth.CLI()))
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
