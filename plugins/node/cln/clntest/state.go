package clntest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/lightningnetwork/lnd/lnwire"
	"github.com/lightningnetwork/lnd/zpay32"
)

// state is what the node keeps across restarts: its invoices, its
// outgoing payments (one sendpay part each), the peer's invoices, and the
// indexes of the wait subsystems.
type state struct {
	key, peerKey *btcec.PrivateKey
	router       string     // the node between the node and its peer
	invoices     []*invoice // in created order; deleted ones removed
	byHash       map[string]*invoice
	sendpays     []*sendpay
	peer         map[string]*peerInvoice // by payment hash
	payIndex     uint64
	index        map[string]uint64 // "invoices.created", "sendpays.updated", ...
	blockheight  uint32
	chain        []*chainTx
	scripts      map[string]bool // the wallet's output scripts
	utxos        []*utxo
	// refuseBroadcast, when set, is the reason the next sendpsbt fails.
	refuseBroadcast string
	// unreserveNext counts the next txprepare calls whose coins another
	// program frees at once (UnreserveNextPrepared).
	unreserveNext int
	// store is the datastore: string values by key (its parts joined by
	// "/"), with their generations.
	store map[string]*datum
}

func newState(key, peerKey, routerKey *btcec.PrivateKey) state {
	return state{key: key, peerKey: peerKey, router: hex.EncodeToString(routerKey.PubKey().SerializeCompressed()), byHash: map[string]*invoice{}, peer: map[string]*peerInvoice{},
		index: map[string]uint64{}, blockheight: 800, scripts: map[string]bool{}}
}

// invoice is an invoice of the node (lightning-listinvoices).
type invoice struct {
	Label              string  `json:"label"`
	Bolt11             string  `json:"bolt11"`
	PaymentHash        string  `json:"payment_hash"`
	Status             string  `json:"status"`
	Description        *string `json:"description,omitempty"`
	AmountMsat         *int64  `json:"amount_msat,omitempty"`
	ExpiresAt          int64   `json:"expires_at"`
	CreatedIndex       uint64  `json:"created_index"`
	UpdatedIndex       uint64  `json:"updated_index,omitempty"`
	PayIndex           uint64  `json:"pay_index,omitempty"`
	AmountReceivedMsat int64   `json:"amount_received_msat,omitempty"`
	PaidAt             int64   `json:"paid_at,omitempty"`
	PaymentPreimage    string  `json:"payment_preimage,omitempty"`
	secret, preimage   string
}

// sendpay is one part of an outgoing payment (lightning-listsendpays).
type sendpay struct {
	ID              uint64 `json:"id"`
	GroupID         uint64 `json:"groupid"`
	PartID          uint64 `json:"partid"`
	PaymentHash     string `json:"payment_hash"`
	Status          string `json:"status"` // pending, failed, complete
	AmountMsat      int64  `json:"amount_msat"`
	AmountSentMsat  int64  `json:"amount_sent_msat"`
	Destination     string `json:"destination"`
	CreatedAt       int64  `json:"created_at"`
	CompletedAt     int64  `json:"completed_at,omitempty"`
	Bolt11          string `json:"bolt11"`
	PaymentPreimage string `json:"payment_preimage,omitempty"`
	CreatedIndex    uint64 `json:"created_index"`
	UpdatedIndex    uint64 `json:"updated_index,omitempty"`
	failure         string
}

// Behaviour is what the payee of a peer invoice does with a payment.
type Behaviour int

// The payee's behaviours.
const (
	Settle Behaviour = iota // settles at once
	Hold                    // holds the HTLC until SettleHold or CancelHold
	Reject                  // fails it: a permanent failure at the destination
)

// peerInvoice is an invoice of the node's channel peer.
type peerInvoice struct {
	bolt11, hash, preimage string
	amount                 int64
	behaviour              Behaviour
	state                  string // open, held, settled, canceled
}

// bump increments the index name of a subsystem and returns it.
func (s *state) bump(name string) uint64 {
	s.index[name]++
	return s.index[name]
}

func (s *state) pubkey() string { return hex.EncodeToString(s.key.PubKey().SerializeCompressed()) }

func (s *state) peerPubkey() string {
	return hex.EncodeToString(s.peerKey.PubKey().SerializeCompressed())
}

// expire marks the unpaid invoices past their expiry as expired; n.mu is
// held.
func (n *Node) expire(now time.Time) {
	for _, inv := range n.invoices {
		if inv.Status == "unpaid" && now.Unix() >= inv.ExpiresAt {
			inv.Status = "expired"
			inv.UpdatedIndex = n.bump("invoices.updated")
			n.notify()
		}
	}
}

// fee is what the router between the node and its peer charges to
// forward msat: 1 sat base and 0.1%.
func fee(msat int64) int64 { return 1000 + msat/1000 }

// newBolt11 signs an invoice of key.
func newBolt11(key *btcec.PrivateKey, hash [32]byte, msat int64, desc string, descHash *[32]byte, expiry time.Duration, cltv uint64) (string, string, error) {
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return "", "", err
	}
	opts := []func(*zpay32.Invoice){
		zpay32.PaymentAddr(secret), zpay32.Expiry(expiry), zpay32.CLTVExpiry(cltv),
		zpay32.Features(lnwire.NewFeatureVector(lnwire.NewRawFeatureVector(lnwire.TLVOnionPayloadRequired, lnwire.PaymentAddrRequired), lnwire.Features)),
	}
	if msat > 0 {
		opts = append(opts, zpay32.Amount(lnwire.MilliSatoshi(msat)))
	}
	if descHash != nil {
		opts = append(opts, zpay32.DescriptionHash(*descHash))
	} else {
		opts = append(opts, zpay32.Description(desc))
	}
	inv, err := zpay32.NewInvoice(&chaincfg.RegressionNetParams, hash, time.Now(), opts...)
	if err != nil {
		return "", "", err
	}
	s, err := inv.Encode(zpay32.MessageSigner{SignCompact: func(msg []byte) ([]byte, error) {
		return ecdsa.SignCompact(key, chainhash.HashB(msg), true), nil
	}})
	return s, hex.EncodeToString(secret[:]), err
}

// randomPreimage draws a preimage and returns it with its hash, in hex.
func randomPreimage() (string, [32]byte) {
	var pre [32]byte
	rand.Read(pre[:]) //nolint:errcheck // never fails
	return hex.EncodeToString(pre[:]), sha256.Sum256(pre[:])
}

// args are a request's parameters by name.
type args map[string]json.RawMessage

func (a args) has(name string) bool { _, ok := a[name]; return ok }

func (a args) str(name string) string {
	var s string
	if json.Unmarshal(a[name], &s) != nil {
		return string(a[name]) // an integer label
	}
	return s
}

func (a args) uint(name string) uint64 {
	n, _ := strconv.ParseUint(string(a[name]), 10, 64)
	return n
}

func (a args) boolean(name string) bool {
	var b bool
	json.Unmarshal(a[name], &b) //nolint:errcheck // checked by the schema
	return b
}
