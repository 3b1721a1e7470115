package embedded_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// The embedded node has no on-chain wallet, and says so: a 422 that names
// what is needed, from every on-chain call.
func TestNoOnchainWallet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, err := embedded.New(ctx, storetest.SQLite(t), "regtest")
	if err != nil {
		t.Fatal(err)
	}
	var cw ledger.ChainWallet = n
	_, err1 := cw.NewAddress(ctx, ledger.P2WPKH)
	_, _, err2 := cw.ChainTransactions(ctx, 0)
	_, err3 := cw.SubscribeChain(ctx)
	var cs ledger.ChainSpender = n
	_, err4 := cs.PrepareSpend(ctx, "lease", ledger.SpendRequest{Address: "bcrt1q", AmountSat: 1000})
	err5 := cs.PublishSpend(ctx, &ledger.PreparedSpend{})
	if _, err := cs.LookupChainTx(ctx, "00"); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Errorf("lookup: %v", err)
	}
	for _, err := range []error{err1, err2, err3, err4, err5} {
		f, ok := fault.As(err)
		if !errors.Is(err, ledger.ErrNoOnchain) || !ok || f.Kind != fault.Unprocessable || f.Reason != "the on-chain wallet needs an lnd or cln node" {
			t.Errorf("err = %v", err)
		}
	}
}
