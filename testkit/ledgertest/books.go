// Package ledgertest is what the tests of a ledger over a real node share
// (the node contract, testkit/nodecontract, and the LND backend's own
// tests): the database, the ledger of the running instance, and the
// wallets, invoices and waits those tests read them through.
package ledgertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/poll"
)

// Books is a test's view of one instance's books. Led is the ledger of the
// instance now running: a test harness that restarts the instance sets it
// anew.
type Books struct {
	T   testing.TB
	DB  *store.DB
	Led *ledger.Service
}

// Wallet ensures user's wallet and returns its id.
func (b *Books) Wallet(user string) string {
	b.T.Helper()
	w, err := wallet.NewService(b.DB).Ensure(context.Background(), user)
	if err != nil {
		b.T.Fatal(err)
	}
	return w.ID
}

// Balance reads a wallet's balance.
func (b *Books) Balance(walletID string) wallet.Balance {
	b.T.Helper()
	w, err := wallet.NewService(b.DB).Get(context.Background(), walletID)
	if err != nil {
		b.T.Fatal(err)
	}
	return w.Balance
}

// Invoice makes an invoice of msat into walletID.
func (b *Books) Invoice(walletID string, msat int64) *ledger.Invoice {
	b.T.Helper()
	inv, err := b.Led.CreateInvoice(context.Background(), walletID, ledger.NewInvoice{AmountMsat: msat})
	if err != nil {
		b.T.Fatal(err)
	}
	return inv
}

// WaitInvoice waits until invoice id has status.
func (b *Books) WaitInvoice(id, status string) {
	b.T.Helper()
	poll.Until(b.T, 30*time.Second, func() error {
		inv, err := b.Led.Invoice(context.Background(), "", id)
		if err == nil && inv.Status != status {
			err = fmt.Errorf("invoice %s", inv.Status)
		}
		return err
	})
}

// WaitPayment waits until payment id has status, and returns it.
func (b *Books) WaitPayment(id, status string) *ledger.Payment {
	b.T.Helper()
	var p *ledger.Payment
	poll.Until(b.T, 60*time.Second, func() error {
		var err error
		p, err = b.Led.Payment(context.Background(), "", id)
		if err == nil && p.Status != status {
			err = fmt.Errorf("payment %s", p.Status)
		}
		return err
	})
	return p
}

// Check fails the test on any ledger breach.
func (b *Books) Check() {
	b.T.Helper()
	breaches, err := b.Led.Check(context.Background())
	if err != nil {
		b.T.Fatal(err)
	}
	for _, br := range breaches {
		b.T.Errorf("ledger breach: %+v", br)
	}
}
