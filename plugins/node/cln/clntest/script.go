package clntest

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/lightningnetwork/lnd/zpay32"
)

// What the world around the node does, scripted by the tests.

// Pubkey is the node's id.
func (n *Node) Pubkey() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.pubkey()
}

// PeerInvoice makes an invoice of the channel peer whose payee does b with
// a payment; msat 0 makes an invoice without an amount.
func (n *Node) PeerInvoice(msat int64, desc string, b Behaviour) (bolt11, hash string, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	pre, h := randomPreimage()
	bolt11, _, err = newBolt11(n.peerKey, h, msat, desc, nil, time.Hour, 40)
	if err != nil {
		return "", "", err
	}
	hash = hex.EncodeToString(h[:])
	n.peer[hash] = &peerInvoice{bolt11: bolt11, hash: hash, preimage: pre, amount: msat, behaviour: b, state: "open"}
	return bolt11, hash, nil
}

// StrangerInvoice makes an invoice of a node the network cannot reach.
func StrangerInvoice(msat int64) (string, error) {
	key, err := btcec.NewPrivateKey()
	if err != nil {
		return "", err
	}
	_, h := randomPreimage()
	s, _, err := newBolt11(key, h, msat, "nowhere", nil, time.Hour, 40)
	return s, err
}

// WaitHeld waits until the peer holds a payment of its hold invoice.
func (n *Node) WaitHeld(ctx context.Context, hash string) error {
	for {
		n.mu.Lock()
		p, changed := n.peer[hash], n.changed
		held := p != nil && p.state == "held"
		n.mu.Unlock()
		if p == nil {
			return fmt.Errorf("no peer invoice %s", hash)
		}
		if held {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the peer to hold %s: %w", hash, ctx.Err())
		}
	}
}

// SettleHold has the peer settle the payment it holds.
func (n *Node) SettleHold(hash string) error { return n.resolveHold(hash, true) }

// CancelHold has the peer fail the payment it holds.
func (n *Node) CancelHold(hash string) error { return n.resolveHold(hash, false) }

func (n *Node) resolveHold(hash string, settle bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.peer[hash]
	if p == nil || p.state != "held" {
		return fmt.Errorf("the peer holds no payment of %s", hash)
	}
	for _, sp := range n.sendpays {
		if sp.PaymentHash == hash && sp.Status == "pending" {
			n.finish(sp, p, settle)
		}
	}
	return nil
}

// PayInvoice has the peer pay an invoice of the node, as the network
// would: refused when the node no longer has it, or it is paid or expired.
// amountMsat is what is paid for an invoice without an amount.
func (n *Node) PayInvoice(bolt11 string, amountMsat int64) error {
	inv, err := zpay32.Decode(bolt11, &chaincfg.RegressionNetParams)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.expire(time.Now())
	in := n.byHash[hex.EncodeToString(inv.PaymentHash[:])]
	switch {
	case in == nil:
		return errors.New("incorrect_or_unknown_payment_details: the node has no such invoice")
	case in.Status != "unpaid":
		return errors.New("incorrect_or_unknown_payment_details: the invoice is " + in.Status)
	}
	if in.AmountMsat != nil {
		amountMsat = *in.AmountMsat
	}
	n.payIndex++
	in.Status, in.PayIndex, in.AmountReceivedMsat = "paid", n.payIndex, amountMsat
	in.PaidAt, in.PaymentPreimage = time.Now().Unix(), in.preimage
	in.UpdatedIndex = n.bump("invoices.updated")
	n.notify()
	return nil
}

// InvoiceState is the state of the node's invoice of hash: unpaid, paid,
// expired, or deleted when the node no longer has it.
func (n *Node) InvoiceState(hash string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.expire(time.Now())
	if in := n.byHash[hash]; in != nil {
		return in.Status
	}
	return "deleted"
}

// PaymentCount is how many payment parts the node sent for hash.
func (n *Node) PaymentCount(hash string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, sp := range n.sendpays {
		if sp.PaymentHash == hash {
			c++
		}
	}
	return c
}
