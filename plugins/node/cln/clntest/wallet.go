package clntest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/psbt"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"
)

// The node's coins and its spends: txprepare, signpsbt, sendpsbt and
// unreserveinputs over PSBTs, as lightningd's wallet answers them. The
// signatures are not real (nothing here checks them); everything else —
// coin selection, reservation, fees by size, change — is.

// utxo is a coin of the wallet (listfunds outputs).
type utxo struct {
	op       wire.OutPoint
	value    int64
	script   []byte
	height   uint32 // 0 while unconfirmed
	reserved bool
	spent    bool
}

// initialCoin is the wallet's coin at start: 2.5 BTC, mined at 700.
const initialCoin = 250_000_000

// feerateRE is a feerate of a number and a style.
var feerateRE = regexp.MustCompile(`^([0-9]+)(perkb|perkw|blocks)?$`)

// satPerKvB reads a feerate parameter (checked by the schema).
func satPerKvB(a args) int64 {
	if !a.has("feerate") {
		return 5_000 // normal
	}
	s := a.str("feerate")
	switch s {
	case "urgent":
		return 10_000
	case "normal":
		return 5_000
	case "slow", "minimum":
		return 1_000
	}
	m := feerateRE.FindStringSubmatch(s)
	n, _ := strconv.ParseInt(m[1], 10, 64)
	switch m[2] {
	case "blocks":
		if n <= 6 {
			return 5_000
		}
		return 2_000
	case "perkw":
		return n * 4
	}
	return n // perkb, lightningd's default style
}

// walletScript makes a new script of the wallet (p2wpkh).
func (n *Node) walletScript() []byte {
	key, _ := btcec.NewPrivateKey()
	addr, _ := btcutil.NewAddressWitnessPubKeyHash(btcutil.Hash160(key.PubKey().SerializeCompressed()), &chaincfg.RegressionNetParams)
	script, _ := txscript.PayToAddrScript(addr)
	n.scripts[string(script)] = true
	return script
}

// addCoins adds the outputs of tx paying the wallet; n.mu is held.
func (n *Node) addCoins(tx *wire.MsgTx, height uint32) {
	for i, o := range tx.TxOut {
		if n.scripts[string(o.PkScript)] {
			n.utxos = append(n.utxos, &utxo{op: wire.OutPoint{Hash: tx.TxHash(), Index: uint32(i)}, value: o.Value, script: o.PkScript, height: height})
		}
	}
}

func (n *Node) coin(op wire.OutPoint) *utxo {
	for _, u := range n.utxos {
		if u.op == op {
			return u
		}
	}
	return nil
}

func (n *Node) txprepare(a args) (any, error) {
	var outs []map[string]any
	if err := json.Unmarshal(a["outputs"], &outs); err != nil || len(outs) == 0 {
		return nil, invalidParams("outputs: Expected an array of {address: amount}: invalid token (see logs for details)")
	}
	tx := wire.NewMsgTx(2)
	var total int64
	for _, o := range outs {
		if len(o) != 1 {
			return nil, invalidParams("outputs: Expected an array of {address: amount}: invalid token (see logs for details)")
		}
		for address, amount := range o {
			addr, err := btcutil.DecodeAddress(address, &chaincfg.RegressionNetParams)
			if err != nil || !addr.IsForNet(&chaincfg.RegressionNetParams) {
				return nil, invalidParams("Could not parse destination address, %s should be a valid address", address)
			}
			sat, ok := satAmount(amount)
			if !ok {
				return nil, invalidParams("outputs: '%v' should be a satoshi amount", amount)
			}
			script, _ := txscript.PayToAddrScript(addr)
			tx.AddTxOut(wire.NewTxOut(sat, script))
			total += sat
		}
	}
	rate := satPerKvB(a)
	var coins []*utxo
	for _, u := range n.utxos {
		if !u.spent && !u.reserved && u.height != 0 {
			coins = append(coins, u)
		}
	}
	sort.Slice(coins, func(i, j int) bool { return coins[i].value > coins[j].value })
	var in int64
	var picked []*utxo
	fee := func(outputs int) int64 { return rate * int64(11+68*len(picked)+43*outputs) / 1000 }
	for _, u := range coins {
		if in >= total+fee(len(tx.TxOut)+1) {
			break
		}
		picked, in = append(picked, u), in+u.value
	}
	if in < total+fee(len(tx.TxOut)) {
		return nil, &rpcError{Code: 301, Message: fmt.Sprintf("Could not afford %dsat using all %d available UTXOs: %dsat short",
			total+fee(len(tx.TxOut)), len(coins), total+fee(len(tx.TxOut))-in)}
	}
	if change := in - total - fee(len(tx.TxOut)+1); change >= 546 {
		tx.AddTxOut(wire.NewTxOut(change, n.walletScript()))
	}
	for _, u := range picked {
		tx.AddTxIn(wire.NewTxIn(&u.op, nil, nil))
	}
	p, err := psbt.NewFromUnsignedTx(tx)
	if err != nil {
		return nil, err
	}
	for i, u := range picked {
		p.Inputs[i].WitnessUtxo = wire.NewTxOut(u.value, u.script)
		u.reserved = n.unreserveNext == 0 // another program frees it at once
	}
	if n.unreserveNext > 0 {
		n.unreserveNext--
	}
	b64, err := p.B64Encode()
	if err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	tx.Serialize(&raw) //nolint:errcheck // a buffer does not fail
	return map[string]any{"psbt": b64, "unsigned_tx": hex.EncodeToString(raw.Bytes()), "txid": tx.TxHash().String()}, nil
}

// readPSBT parses a psbt parameter.
func readPSBT(a args) (*psbt.Packet, error) {
	p, err := psbt.NewFromRawBytes(strings.NewReader(a.str("psbt")), true)
	if err != nil {
		return nil, invalidParams("psbt: should be a PSBT: invalid token (see logs for details)")
	}
	return p, nil
}

func (n *Node) signpsbt(a args) (any, error) {
	p, err := readPSBT(a)
	if err != nil {
		return nil, err
	}
	signed := 0
	for i, in := range p.UnsignedTx.TxIn {
		u := n.coin(in.PreviousOutPoint)
		if u == nil || u.spent {
			continue
		}
		if !u.reserved {
			return nil, invalidParams("Aborting PSBT signing. UTXO %s is not reserved", in.PreviousOutPoint)
		}
		sig, pub := make([]byte, 71), make([]byte, 33)
		rand.Read(sig) //nolint:errcheck // never fails
		rand.Read(pub) //nolint:errcheck // never fails
		var w bytes.Buffer
		if err := psbt.WriteTxWitness(&w, wire.TxWitness{sig, pub}); err != nil {
			return nil, err
		}
		p.Inputs[i].FinalScriptWitness = w.Bytes()
		signed++
	}
	if signed == 0 {
		return nil, &rpcError{Code: -1, Message: "No wallet inputs to sign"}
	}
	b64, err := p.B64Encode()
	if err != nil {
		return nil, err
	}
	return map[string]any{"signed_psbt": b64}, nil
}

func (n *Node) sendpsbt(a args) (any, error) {
	p, err := readPSBT(a)
	if err != nil {
		return nil, err
	}
	tx, err := psbt.Extract(p)
	if err != nil {
		return nil, invalidParams("psbt: Could not finalize PSBT: invalid token (see logs for details)")
	}
	if reason := n.refuseBroadcast; reason != "" {
		n.refuseBroadcast = ""
		return nil, invalidParams("Error broadcasting transaction: %s", reason)
	}
	for _, in := range tx.TxIn {
		if u := n.coin(in.PreviousOutPoint); u == nil || u.spent {
			return nil, invalidParams("Error broadcasting transaction: bad-txns-inputs-missingorspent")
		}
	}
	for _, in := range tx.TxIn {
		u := n.coin(in.PreviousOutPoint)
		u.spent, u.reserved = true, false
	}
	n.chain = append(n.chain, &chainTx{tx: tx, ours: true})
	n.addCoins(tx, 0)
	n.notify()
	var raw bytes.Buffer
	tx.Serialize(&raw) //nolint:errcheck // a buffer does not fail
	return map[string]any{"tx": hex.EncodeToString(raw.Bytes()), "txid": tx.TxHash().String()}, nil
}

func (n *Node) unreserveinputs(a args) (any, error) {
	p, err := readPSBT(a)
	if err != nil {
		return nil, err
	}
	res := []any{}
	for _, in := range p.UnsignedTx.TxIn {
		u := n.coin(in.PreviousOutPoint)
		if u == nil || u.spent {
			continue
		}
		res = append(res, map[string]any{"txid": u.op.Hash.String(), "vout": u.op.Index, "was_reserved": u.reserved, "reserved": false})
		u.reserved = false
	}
	return map[string]any{"reservations": res}, nil
}

// UnreserveNextPrepared has another program of the node free the coins of
// the next count txprepare calls as soon as they are reserved, as
// unreserveinputs from elsewhere would: signpsbt then refuses them.
func (n *Node) UnreserveNextPrepared(count int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.unreserveNext = count
}

// RefuseNextBroadcast makes the next sendpsbt fail as bitcoind's refusal.
func (n *Node) RefuseNextBroadcast(reason string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.refuseBroadcast = reason
}

// Reserved is how many of the wallet's coins are reserved.
func (n *Node) Reserved() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, u := range n.utxos {
		if u.reserved {
			c++
		}
	}
	return c
}

// satAmount reads an output amount: sats as a number, "Nsat" or "Nmsat".
func satAmount(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		return int64(x), x > 0 && x == float64(int64(x))
	case string:
		switch {
		case strings.HasSuffix(x, "msat"):
			n, err := strconv.ParseInt(strings.TrimSuffix(x, "msat"), 10, 64)
			return n / 1000, err == nil && n > 0 && n%1000 == 0
		case strings.HasSuffix(x, "sat"):
			n, err := strconv.ParseInt(strings.TrimSuffix(x, "sat"), 10, 64)
			return n, err == nil && n > 0
		}
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil && n > 0
	}
	return 0, false
}

// initialTx is the transaction that paid the wallet its initial coin.
func (n *Node) initialTx() {
	var prev chainhash.Hash
	rand.Read(prev[:]) //nolint:errcheck // never fails
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
	tx.AddTxOut(wire.NewTxOut(initialCoin, n.walletScript()))
	n.chain = append(n.chain, &chainTx{tx: tx, blockheight: 700})
	n.addCoins(tx, 700)
}
