package main

import (
	"context"
	"fmt"
	"io"

	"github.com/hearthwallet/hearth/core/ledger"
)

// ledgerCheckNode is `hearth ledger check [--full] [--node]`: the ledger
// check, then with node what the wallets are owed against what the node
// holds (on-chain confirmed plus its channels' local balance), both
// printed.
func ledgerCheckNode(ctx context.Context, led *ledger.Service, full, node bool, stdout io.Writer) error {
	if err := ledgerCheck(ctx, led, full, stdout); err != nil || !node {
		return err
	}
	v, err := led.Solvency(ctx)
	if err != nil {
		return err
	}
	if !v.External {
		fmt.Fprintf(stdout, "node check: the wallets are owed %d msat; the embedded node holds no funds of its own\n", v.OwedMsat)
		return nil
	}
	fmt.Fprintf(stdout, "node check: the wallets are owed %d msat; the node holds %d msat (on-chain confirmed %d sat, channels %d msat)\n",
		v.OwedMsat, v.HeldMsat(), v.OnchainSat, v.ChannelMsat)
	if !v.Solvent() {
		return fmt.Errorf("node check: the node holds %d msat less than the wallets are owed", v.OwedMsat-v.HeldMsat())
	}
	return nil
}
