package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/hearthwallet/hearth/core/ledger"
)

// ledgerCheckArgs reads `ledger check [--full] [--node]` (flags in either
// order); ok is false for anything else.
func ledgerCheckArgs(args []string) (full, node, ok bool) {
	if len(args) < 2 || args[0] != "ledger" || args[1] != "check" {
		return false, false, false
	}
	rest := args[2:]
	full, node = slices.Contains(rest, "--full"), slices.Contains(rest, "--node")
	n := 0
	for _, on := range []bool{full, node} {
		if on {
			n++
		}
	}
	return full, node, len(rest) == n
}

// ledgerCheck is `hearth ledger check`: every wallet's balances against
// each other and against the sums of its invoices and payments, of those
// that settled after the ledger's checkpoint on top of it
// (ledger.CheckIncremental), or with full of every row, the checkpoint
// rebuilt (ledger.CheckFull). A breach is printed and makes the error.
func ledgerCheck(ctx context.Context, led *ledger.Service, full bool, stdout io.Writer) error {
	check := led.CheckIncremental
	if full {
		check = led.CheckFull
	}
	rep, err := check(ctx)
	if err != nil {
		return err
	}
	for _, b := range rep.Breaches {
		fmt.Fprintf(stdout, "BREACH wallet %s: %s (available %d, reserved %d, received %d, sent %d, fees %d)\n",
			b.WalletID, b.Reason, b.Available, b.Reserved, b.Received, b.Sent, b.Fees)
	}
	if len(rep.Breaches) > 0 {
		return fmt.Errorf("ledger check: %d wallet(s) in breach", len(rep.Breaches))
	}
	fmt.Fprintln(stdout, "ledger check: every wallet balances")
	return nil
}
