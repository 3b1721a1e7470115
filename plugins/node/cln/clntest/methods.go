package clntest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// run answers a method whose parameters passed the schema. The answers
// carry the fields the v24.11 response schemas require (and the optional
// ones Hearth reads).
func (n *Node) run(method string, a args, gone <-chan struct{}) (any, error) {
	switch method {
	case "wait":
		return n.wait(a, gone)
	case "xpay":
		return n.xpay(a, gone)
	case "waitblockheight":
		return n.waitblockheight(a, gone)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.expire(time.Now())
	switch method {
	case "getinfo":
		return n.getinfo(), nil
	case "listfunds":
		return n.listfunds(), nil
	case "invoice":
		return n.invoice(a)
	case "listinvoices":
		return n.listinvoices(a)
	case "delinvoice":
		return n.delinvoice(a)
	case "listsendpays":
		return map[string]any{"payments": n.selectSendpays(a)}, nil
	case "listpays":
		return map[string]any{"pays": n.listpays(a)}, nil
	case "getroutes":
		return n.getroutes(a)
	case "newaddr":
		return n.newaddr(a)
	case "listtransactions":
		return n.listtransactions(), nil
	case "txprepare":
		return n.txprepare(a)
	case "signpsbt":
		return n.signpsbt(a)
	case "sendpsbt":
		return n.sendpsbt(a)
	case "unreserveinputs":
		return n.unreserveinputs(a)
	case "datastore":
		return n.datastore(a)
	case "listdatastore":
		return n.listdatastore(a)
	case "deldatastore":
		return n.deldatastore(a)
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("Unknown command '%s'", method)}
}

func (n *Node) getinfo() any {
	return map[string]any{
		"id": n.pubkey(), "alias": "HEARTHDOUBLE", "color": "02aabb", "num_peers": 1,
		"num_pending_channels": 0, "num_active_channels": 1, "num_inactive_channels": 0,
		"address": []any{}, "binding": []any{}, "version": "v24.11", "blockheight": n.blockheight,
		"network": "regtest", "fees_collected_msat": 0, "lightning-dir": "/tmp/lightning/regtest",
		"our_features": map[string]string{"init": "08a0000a8a59a1", "node": "88a0000a8a59a1", "channel": "", "invoice": "02000002024100"},
	}
}

// channelMsat is the node's one channel: its capacity and what is ours.
const (
	channelMsat = 10_000_000_000
	ourMsat     = 6_000_000_000
)

func (n *Node) listfunds() any {
	outputs := []any{}
	for _, u := range n.utxos {
		if u.spent {
			continue
		}
		o := map[string]any{"txid": u.op.Hash.String(), "output": u.op.Index, "amount_msat": u.value * 1000,
			"scriptpubkey": hex.EncodeToString(u.script), "status": "unconfirmed", "reserved": u.reserved}
		if u.height != 0 {
			o["status"], o["blockheight"] = "confirmed", u.height
		}
		outputs = append(outputs, o)
	}
	return map[string]any{
		"outputs": outputs,
		"channels": []any{map[string]any{
			"peer_id": n.router, "connected": true, "state": "CHANNELD_NORMAL",
			"channel_id":       "99aabbccddeeff00112233445566778899aabbccddeeff001122334455667788",
			"short_channel_id": "700x1x0", "our_amount_msat": ourMsat, "amount_msat": channelMsat,
			"funding_txid": "8877665544332211ffeeddccbbaa99887766554433221100ffeeddccbbaa9988", "funding_output": 0,
		}},
	}
}

func (n *Node) invoice(a args) (any, error) {
	label := a.str("label")
	for _, inv := range n.invoices {
		if inv.Label == label {
			return nil, &rpcError{Code: codeLabelExists, Message: "Duplicate label '" + label + "'"}
		}
	}
	var hash [32]byte
	preimage := a.str("preimage")
	if a.has("preimage") {
		raw, _ := hex.DecodeString(preimage)
		if len(raw) != 32 {
			return nil, invalidParams("preimage: should be 32 bytes: invalid token (see logs for details)")
		}
		hash = sha256.Sum256(raw)
	} else {
		preimage, hash = randomPreimage()
	}
	hashHex := hex.EncodeToString(hash[:])
	if _, ok := n.byHash[hashHex]; ok {
		return nil, &rpcError{Code: codePreimageExists, Message: "preimage already used"}
	}
	var msat int64
	if a.str("amount_msat") != "any" {
		msat = msatValue(a["amount_msat"])
	}
	expiry := uint64(604800)
	if a.has("expiry") {
		expiry = a.uint("expiry")
	}
	cltv := uint64(18)
	if a.has("cltv") {
		cltv = a.uint("cltv")
	}
	desc := a.str("description")
	var descHash *[32]byte
	if a.boolean("deschashonly") {
		h := sha256.Sum256([]byte(desc))
		descHash = &h
	}
	bolt11, secret, err := newBolt11(n.key, hash, msat, desc, descHash, time.Duration(expiry)*time.Second, cltv)
	if err != nil {
		return nil, err
	}
	inv := &invoice{Label: label, Bolt11: bolt11, PaymentHash: hashHex, Status: "unpaid", Description: &desc,
		ExpiresAt: time.Now().Unix() + int64(expiry), CreatedIndex: n.bump("invoices.created"), secret: secret, preimage: preimage}
	if msat > 0 {
		inv.AmountMsat = &msat
	}
	n.invoices = append(n.invoices, inv)
	n.byHash[hashHex] = inv
	n.notify()
	return map[string]any{"bolt11": bolt11, "payment_hash": hashHex, "payment_secret": secret,
		"expires_at": inv.ExpiresAt, "created_index": inv.CreatedIndex}, nil
}

func (n *Node) listinvoices(a args) (any, error) {
	filters := 0
	for _, k := range []string{"label", "invstring", "payment_hash", "offer_id"} {
		if a.has(k) {
			filters++
		}
	}
	if filters > 1 {
		return nil, invalidParams("Can only specify one of {label}, {invstring}, {payment_hash} or {offer_id}")
	}
	if a.has("start") && !a.has("index") {
		return nil, invalidParams("Can only specify {start} with {index}")
	}
	out := []*invoice{}
	for _, inv := range n.invoices {
		switch {
		case a.has("label") && inv.Label != a.str("label"),
			a.has("payment_hash") && inv.PaymentHash != a.str("payment_hash"),
			a.has("invstring") && inv.Bolt11 != a.str("invstring"),
			a.has("offer_id"):
			continue
		case a.str("index") == "created" && inv.CreatedIndex < a.uint("start"),
			a.str("index") == "updated" && (inv.UpdatedIndex == 0 || inv.UpdatedIndex < a.uint("start")):
			continue
		}
		out = append(out, inv)
	}
	if a.str("index") == "updated" {
		sortBy(out, func(i *invoice) uint64 { return i.UpdatedIndex })
	}
	if a.has("limit") && uint64(len(out)) > a.uint("limit") {
		out = out[:a.uint("limit")]
	}
	return map[string]any{"invoices": out}, nil
}

func (n *Node) delinvoice(a args) (any, error) {
	label, status := a.str("label"), a.str("status")
	for i, inv := range n.invoices {
		if inv.Label != label {
			continue
		}
		if inv.Status != status {
			return nil, &rpcError{Code: codeInvoiceStatus, Message: "Invoice status is " + inv.Status + " not " + status,
				Data: map[string]string{"current_status": inv.Status, "expected_status": status}}
		}
		if a.boolean("desconly") {
			inv.Description = nil
			inv.UpdatedIndex = n.bump("invoices.updated")
			n.notify()
			return inv, nil
		}
		n.invoices = append(n.invoices[:i:i], n.invoices[i+1:]...)
		delete(n.byHash, inv.PaymentHash)
		n.bump("invoices.deleted")
		n.notify()
		return inv, nil
	}
	return nil, &rpcError{Code: codeInvoiceNotFound, Message: "Unknown invoice"}
}

// wait blocks until the index reaches nextvalue, or the connection goes.
func (n *Node) wait(a args, gone <-chan struct{}) (any, error) {
	subsystem, name, next := a.str("subsystem"), a.str("indexname"), a.uint("nextvalue")
	for {
		n.mu.Lock()
		cur, changed := n.index[subsystem+"."+name], n.changed
		n.mu.Unlock()
		if cur >= next {
			return map[string]any{"subsystem": subsystem, name: cur}, nil
		}
		select {
		case <-changed:
		case <-gone:
			return nil, errGone
		}
	}
}

// sortBy sorts in place by key (insertion sort: the lists are short).
func sortBy[T any](list []T, key func(T) uint64) {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && key(list[j]) < key(list[j-1]); j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

// getroutes finds the one route to the peer, through the router.
func (n *Node) getroutes(a args) (any, error) {
	if a.str("source") != n.pubkey() {
		return nil, &rpcError{Code: codePayRouteNotFound, Message: "Unknown source node " + a.str("source")}
	}
	if a.str("destination") != n.peerPubkey() {
		return nil, &rpcError{Code: codePayRouteNotFound, Message: "Unknown destination node " + a.str("destination")}
	}
	amount, cltv := msatValue(a["amount_msat"]), a.uint("final_cltv")
	f := fee(amount)
	if f > msatValue(a["maxfee_msat"]) {
		return nil, &rpcError{Code: codePayRouteNotFound, Message: "Could not find route without excessive cost"}
	}
	return map[string]any{"probability_ppm": 900000, "routes": []any{map[string]any{
		"probability_ppm": 900000, "amount_msat": amount, "final_cltv": cltv,
		"path": []any{
			map[string]any{"short_channel_id_dir": "700x1x0/0", "node_id_in": n.pubkey(), "node_id_out": n.router,
				"amount_in_msat": amount + f, "amount_out_msat": amount + f, "cltv_in": cltv + 6, "cltv_out": cltv + 6},
			map[string]any{"short_channel_id_dir": "701x1x0/1", "node_id_in": n.router, "node_id_out": n.peerPubkey(),
				"amount_in_msat": amount, "amount_out_msat": amount, "cltv_in": cltv, "cltv_out": cltv},
		},
	}}}, nil
}
