// Package embedded is Hearth's zero-setup Lightning backend. A node key,
// generated once and kept in the database, signs real BOLT11 invoices
// (lnd's zpay32). It settles everything that stays inside the instance and
// refuses, with a clear error, anything that would leave it. As an outside
// payer for the admin, it settles an instance invoice through the same path
// a real node's "invoice settled" event takes.
package embedded

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/lightningnetwork/lnd/lnwire"
	"github.com/lightningnetwork/lnd/zpay32"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/bolt11"
)

// keySetting names the node key in the settings store.
const keySetting = "embedded_node_key"

// minFinalCLTVExpiry is the final CLTV delta written into invoices.
const minFinalCLTVExpiry = 80

// KeyStore keeps the node key: it returns the value stored under name,
// storing create's value first when there is none.
type KeyStore interface {
	SettingOrCreate(ctx context.Context, name string, create func() (string, error)) (string, error)
}

// Node is the embedded backend.
type Node struct {
	key     *btcec.PrivateKey
	pubkey  string
	net     *chaincfg.Params
	netName string
	now     func() time.Time

	mu   sync.Mutex
	subs []chan ledger.InvoiceSettlement
}

// Networks maps configuration names to chain parameters.
var Networks = map[string]*chaincfg.Params{
	"mainnet": &chaincfg.MainNetParams,
	"testnet": &chaincfg.TestNet3Params,
	"signet":  &chaincfg.SigNetParams,
	"regtest": &chaincfg.RegressionNetParams,
	"simnet":  &chaincfg.SimNetParams,
}

// New loads (or on first start creates) the node key.
func New(ctx context.Context, keys KeyStore, network string) (*Node, error) {
	params, ok := Networks[network]
	if !ok {
		return nil, fmt.Errorf("embedded node: unknown network %q", network)
	}
	raw, err := keys.SettingOrCreate(ctx, keySetting, func() (string, error) {
		k, err := btcec.NewPrivateKey()
		if err != nil {
			return "", err
		}
		return hex.EncodeToString(k.Serialize()), nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded node key: %w", err)
	}
	b, err := hex.DecodeString(raw)
	if err != nil || len(b) != 32 {
		return nil, errors.New("embedded node key: stored key is malformed")
	}
	key, _ := btcec.PrivKeyFromBytes(b)
	return &Node{
		key:     key,
		pubkey:  hex.EncodeToString(key.PubKey().SerializeCompressed()),
		net:     params,
		netName: network,
		now:     time.Now,
	}, nil
}

// Manifest describes the embedded node as a built-in plugin: it appears in
// the plugin list, and asks nothing of the host API but to be the
// ledger's node (node:backend).
func Manifest() *host.Manifest {
	return &host.Manifest{Name: "node-embedded", Version: "1.0.0", ABI: host.ABIVersion,
		Description: "The zero-setup Lightning backend: signs real BOLT11 invoices and settles everything inside the instance.",
		Scopes:      []string{host.NodeBackend}}
}

// Pubkey is the node's public key, hex.
func (n *Node) Pubkey() string { return n.pubkey }

// Info describes the node.
func (n *Node) Info(context.Context) (ledger.NodeInfo, error) {
	return ledger.NodeInfo{
		Backend: "embedded",
		Alias:   "hearth-embedded",
		Pubkey:  n.pubkey,
		Network: n.netName,
	}, nil
}

// ExternalPayments is false: the embedded node has no channels.
func (n *Node) ExternalPayments() bool { return false }

// CreateInvoice signs a new BOLT11 invoice with a fresh preimage.
func (n *Node) CreateInvoice(_ context.Context, req ledger.NodeInvoiceRequest) (*ledger.NodeInvoice, error) {
	var preimage [32]byte
	if _, err := rand.Read(preimage[:]); err != nil {
		return nil, err
	}
	inv, err := n.signInvoice(req, sha256.Sum256(preimage[:]), minFinalCLTVExpiry)
	if err != nil {
		return nil, err
	}
	inv.Preimage = hex.EncodeToString(preimage[:])
	return inv, nil
}

// CreateHoldInvoice signs an invoice for req's payment hash, whose
// preimage the node is not told. The embedded node holds nothing: its
// outsider's payments go to the ledger (PayAsOutsider), which holds them
// as Accepted hold invoices, so settling and cancelling have nothing to
// do here.
func (n *Node) CreateHoldInvoice(_ context.Context, req ledger.NodeHoldRequest) (*ledger.NodeInvoice, error) {
	raw, err := hex.DecodeString(req.PaymentHash)
	if err != nil || len(raw) != 32 {
		return nil, errors.New("payment hash must be 32 bytes, hex")
	}
	return n.signInvoice(req.NodeInvoiceRequest, [32]byte(raw), req.MinFinalCLTVExpiryDelta)
}

// SettleHoldInvoice has nothing to release (see CreateHoldInvoice).
func (n *Node) SettleHoldInvoice(context.Context, string) error { return nil }

// signInvoice signs an invoice of req for hash, with a fresh payment
// secret and final CLTV delta cltv.
func (n *Node) signInvoice(req ledger.NodeInvoiceRequest, hash [32]byte, cltv uint64) (*ledger.NodeInvoice, error) {
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return nil, err
	}
	created := n.now().Truncate(time.Second)
	opts := []func(*zpay32.Invoice){
		zpay32.Amount(lnwire.MilliSatoshi(req.AmountMsat)),
		zpay32.Expiry(req.Expiry),
		zpay32.CLTVExpiry(cltv),
		zpay32.PaymentAddr(secret),
		zpay32.Features(lnwire.NewFeatureVector(
			lnwire.NewRawFeatureVector(lnwire.TLVOnionPayloadRequired, lnwire.PaymentAddrRequired),
			lnwire.Features)),
	}
	if len(req.DescriptionHash) == 32 {
		opts = append(opts, zpay32.DescriptionHash([32]byte(req.DescriptionHash)))
	} else {
		opts = append(opts, zpay32.Description(req.Description))
	}
	inv, err := zpay32.NewInvoice(n.net, hash, created, opts...)
	if err != nil {
		return nil, fmt.Errorf("building invoice: %w", err)
	}
	bolt11, err := inv.Encode(zpay32.MessageSigner{SignCompact: n.sign})
	if err != nil {
		return nil, fmt.Errorf("signing invoice: %w", err)
	}
	return &ledger.NodeInvoice{
		Bolt11:                  bolt11,
		PaymentHash:             hex.EncodeToString(hash[:]),
		PaymentSecret:           hex.EncodeToString(secret[:]),
		PayeePubkey:             n.pubkey,
		MinFinalCLTVExpiryDelta: cltv,
		CreatedAt:               created,
		Expiry:                  req.Expiry,
	}, nil
}

func (n *Node) sign(msg []byte) ([]byte, error) {
	return ecdsa.SignCompact(n.key, chainhash.HashB(msg), true), nil
}

// Decode parses a BOLT11 invoice of the node's network.
func (n *Node) Decode(s string) (*ledger.DecodedInvoice, error) {
	return bolt11.Decode(s, n.net)
}

// Pay refuses: the embedded node cannot reach the network.
func (n *Node) Pay(context.Context, ledger.NodePayment) (*ledger.NodePaymentResult, error) {
	return nil, &ledger.PaymentFailure{Reason: ledger.ErrNoExternalNode.Reason}
}

// LookupPayment knows no external payments.
func (n *Node) LookupPayment(context.Context, string) (*ledger.NodePaymentResult, error) {
	return &ledger.NodePaymentResult{State: ledger.PaymentUnknown}, nil
}

// LookupInvoice has nothing to add: the embedded node's settlements are
// applied synchronously, so none can be missed.
func (n *Node) LookupInvoice(context.Context, string) (*ledger.InvoiceSettlement, error) {
	return nil, ledger.ErrUnknownInvoice
}

// CancelInvoice has nothing to withdraw.
func (n *Node) CancelInvoice(context.Context, string) error { return nil }

// SubscribeInvoices delivers the settlements of PayAsOutsider until ctx
// ends; the channel is never closed.
func (n *Node) SubscribeInvoices(ctx context.Context) (<-chan ledger.InvoiceSettlement, error) {
	ch := make(chan ledger.InvoiceSettlement)
	n.mu.Lock()
	n.subs = append(n.subs, ch)
	n.mu.Unlock()
	context.AfterFunc(ctx, func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		// The channel is dropped, not closed: a PayAsOutsider may be
		// sending on it right now, and gives up through its own context.
		for i, s := range n.subs {
			if s == ch {
				n.subs = append(n.subs[:i], n.subs[i+1:]...)
				return
			}
		}
	})
	return ch, nil
}

// PayAsOutsider pays an invoice of this instance as if from outside: the
// settlement goes to the ledger as a real node's event would, and the call
// returns once the ledger has applied it.
func (n *Node) PayAsOutsider(ctx context.Context, bolt11 string) error {
	in, err := ledger.ParseInput(bolt11)
	if err != nil {
		return err
	}
	d, err := n.Decode(in.Bolt11)
	if err != nil {
		return ledger.BadInvoice(err)
	}
	if d.PayeePubkey != n.pubkey {
		return ledger.ErrNotOurInvoice
	}
	if !n.now().Before(d.ExpiresAt) {
		return ledger.ErrInvoiceExpired
	}
	done := make(chan error, 1)
	st := ledger.InvoiceSettlement{PaymentHash: d.PaymentHash, AmountMsat: d.AmountMsat, SettledAt: n.now(), Settled: true, Done: done}
	n.mu.Lock()
	var sub chan ledger.InvoiceSettlement
	if len(n.subs) > 0 {
		sub = n.subs[0]
	}
	n.mu.Unlock()
	if sub == nil {
		return errors.New("the ledger is not listening to the node")
	}
	select {
	case sub <- st:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

var (
	_ ledger.Node          = (*Node)(nil)
	_ ledger.ExternalPayer = (*Node)(nil)
	_ ledger.HoldNode      = (*Node)(nil)
)
