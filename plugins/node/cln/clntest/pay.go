package clntest

import (
	"encoding/hex"
	"time"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/lightningnetwork/lnd/zpay32"
)

// xpay pays over the node's one channel to the peer: the peer's invoices
// are paid as their Behaviour says; any other payee is unreachable. As
// lightningd does, the payment goes on when the caller's connection closes.
func (n *Node) xpay(a args, gone <-chan struct{}) (any, error) {
	n.mu.Lock()
	sp, err := n.startPayment(a)
	if err != nil || sp.Status != "pending" {
		n.mu.Unlock()
		return payResult(sp, err)
	}
	for sp.Status == "pending" {
		changed := n.changed
		n.mu.Unlock()
		select {
		case <-changed:
		case <-gone:
			return nil, errGone
		}
		n.mu.Lock()
	}
	n.mu.Unlock()
	return payResult(sp, nil)
}

// startPayment checks an xpay request and sends its one part; n.mu is held.
func (n *Node) startPayment(a args) (*sendpay, error) {
	bolt11 := a.str("invstring")
	inv, err := zpay32.Decode(bolt11, &chaincfg.RegressionNetParams)
	if err != nil || inv.PaymentHash == nil || inv.Destination == nil {
		return nil, invalidParams("invstring: Unparsable invoice: invalid token (see logs for details)")
	}
	var amount int64
	switch {
	case inv.MilliSat != nil && a.has("amount_msat"):
		return nil, invalidParams("amount_msat: Invoice has amount, don't specify one")
	case inv.MilliSat != nil:
		amount = int64(*inv.MilliSat)
	case !a.has("amount_msat"):
		return nil, invalidParams("amount_msat: Invoice has no amount, must specify one")
	default:
		amount = msatValue(a["amount_msat"])
	}
	if time.Now().After(inv.Timestamp.Add(inv.Expiry())) {
		return nil, &rpcError{Code: codePayExpired, Message: "Invoice expired"}
	}
	hash := hex.EncodeToString(inv.PaymentHash[:])
	for _, sp := range n.sendpays {
		if sp.PaymentHash == hash && sp.Status == "complete" {
			return nil, &rpcError{Code: codePayAlreadyPaid, Message: "Already paid"}
		}
		if sp.PaymentHash == hash && sp.Status == "pending" {
			return nil, &rpcError{Code: 200, Message: "Payment already in progress"}
		}
	}
	dest := hex.EncodeToString(inv.Destination.SerializeCompressed())
	p, ok := n.peer[hash]
	if !ok || dest != n.peerPubkey() {
		return nil, &rpcError{Code: codePayRouteNotFound, Message: "Failed: We could not find a usable set of paths: no path to " + dest}
	}
	maxfee := amount / 20
	if a.has("maxfee") {
		maxfee = msatValue(a["maxfee"])
	}
	f := fee(amount)
	if f > maxfee {
		return nil, &rpcError{Code: codePayRouteNotFound, Message: "Failed: We could not find a usable set of paths: the cheapest path costs more than maxfee"}
	}
	if amount+f > n.spendable() {
		return nil, &rpcError{Code: codePayRouteNotFound, Message: "Failed: We could not find a usable set of paths: insufficient capacity in our channels"}
	}
	id := uint64(len(n.sendpays) + 1)
	sp := &sendpay{ID: id, GroupID: id, PartID: 1, PaymentHash: hash, Status: "pending", AmountMsat: amount,
		AmountSentMsat: amount + f, Destination: dest, CreatedAt: time.Now().Unix(), Bolt11: bolt11,
		CreatedIndex: n.bump("sendpays.created")}
	n.sendpays = append(n.sendpays, sp)
	switch p.behaviour {
	case Settle:
		n.finish(sp, p, true)
	case Reject:
		n.finish(sp, p, false)
	case Hold:
		p.state = "held"
	}
	n.notify()
	return sp, nil
}

// spendable is what the channel can still send; n.mu is held.
func (n *Node) spendable() int64 {
	left := int64(ourMsat)
	for _, sp := range n.sendpays {
		if sp.Status != "failed" {
			left -= sp.AmountSentMsat
		}
	}
	return left
}

// finish resolves a part: the payee settled it or failed it; n.mu is held.
func (n *Node) finish(sp *sendpay, p *peerInvoice, ok bool) {
	sp.CompletedAt = time.Now().Unix()
	if ok {
		sp.Status, sp.PaymentPreimage, p.state = "complete", p.preimage, "settled"
	} else {
		sp.Status, sp.failure, p.state = "failed", "Destination said it doesn't know invoice: incorrect_or_unknown_payment_details", "canceled"
	}
	sp.UpdatedIndex = n.bump("sendpays.updated")
	n.notify()
}

// payResult is xpay's answer for a part that is resolved.
func payResult(sp *sendpay, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if sp.Status == "failed" {
		return nil, &rpcError{Code: codePayDestPerm, Message: "Failed after 1 attempts. " + sp.failure}
	}
	return map[string]any{"payment_preimage": sp.PaymentPreimage, "failed_parts": 0, "successful_parts": 1,
		"amount_msat": sp.AmountMsat, "amount_sent_msat": sp.AmountSentMsat}, nil
}

// selectSendpays filters the parts as listsendpays does; n.mu is held.
func (n *Node) selectSendpays(a args) []*sendpay {
	out := []*sendpay{}
	for _, sp := range n.sendpays {
		switch {
		case a.has("payment_hash") && sp.PaymentHash != a.str("payment_hash"),
			a.has("bolt11") && sp.Bolt11 != a.str("bolt11"),
			a.has("status") && sp.Status != a.str("status"),
			a.str("index") == "created" && sp.CreatedIndex < a.uint("start"),
			a.str("index") == "updated" && (sp.UpdatedIndex == 0 || sp.UpdatedIndex < a.uint("start")):
			continue
		}
		out = append(out, sp)
	}
	if a.str("index") == "updated" {
		sortBy(out, func(s *sendpay) uint64 { return s.UpdatedIndex })
	}
	if a.has("limit") && uint64(len(out)) > a.uint("limit") {
		out = out[:a.uint("limit")]
	}
	return out
}

// listpays sums the parts of each payment (one part each here).
func (n *Node) listpays(a args) []map[string]any {
	out := []map[string]any{}
	for _, sp := range n.selectSendpays(a) {
		p := map[string]any{"payment_hash": sp.PaymentHash, "status": sp.Status, "destination": sp.Destination,
			"created_at": sp.CreatedAt, "bolt11": sp.Bolt11, "amount_msat": sp.AmountMsat,
			"amount_sent_msat": sp.AmountSentMsat, "created_index": sp.CreatedIndex}
		if sp.UpdatedIndex != 0 {
			p["updated_index"] = sp.UpdatedIndex
		}
		if sp.Status != "pending" {
			p["completed_at"] = sp.CompletedAt
		}
		if sp.Status == "complete" {
			p["preimage"] = sp.PaymentPreimage
		}
		out = append(out, p)
	}
	return out
}
