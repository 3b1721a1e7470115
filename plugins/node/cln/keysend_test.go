package cln_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/testkit/ledgertest"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// Keysends from a Hearth wallet on Core Lightning, source-routed with the
// preimage Hearth drew: to the outside lnd with a Podcasting 2.0 boost
// (record 7629169), Settled with that preimage, lnd credited the amount
// with the boost intact; to the outside lightningd, whose keysend plugin
// lists it as a paid invoice. LookupPayment reports each as the
// reconciler needs it after a crash (the outcome, the fee, the preimage).
// Refused before anything is reserved: no amount, a protocol record type,
// Hearth's own node. A keysend to a node no route reaches fails at once,
// and the reserve goes back.
func TestKeysendOnCoreLightning(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		n, _ := realBackend(t)
		books := &ledgertest.Books{T: t, DB: db}
		stop := books.Start(n, nil, nil)
		defer func() { stop() }()
		alice := books.Wallet("alice")
		inv := books.Invoice(alice, 500_000)
		if _, err := net.LND.Pay(ctx, inv.LnInvoice.Bolt11, 10_000); err != nil {
			t.Fatal(err)
		}
		books.WaitInvoice(inv.ID, ledger.StatusSettled)

		boost := []byte(`{"action":"boost","value_msat_total":21000,"app_name":"Hearth","message":"great show"}`)
		p := keysend(t, books, alice, net.LND.Pubkey, 21_000, map[uint64][]byte{7629169: boost})
		amount, records, err := net.LND.Keysent(ctx, p.Lightning.PaymentHash)
		if err != nil {
			t.Fatal(err)
		}
		if amount != 21_000 || string(records[7629169]) != string(boost) ||
			hex.EncodeToString(records[ledger.KeysendPreimageRecord]) != *p.Lightning.PaymentPreimage {
			t.Fatalf("lnd received %d msat, records %v", amount, records)
		}
		var shown map[string]string
		if err := json.Unmarshal(p.Lightning.TLVRecords, &shown); err != nil || shown["7629169"] != hex.EncodeToString(boost) {
			t.Fatalf("the record's tlv_records %s: %v", p.Lightning.TLVRecords, err)
		}
		lookedUp(t, n, p)

		q := keysend(t, books, alice, net.Peer.Pubkey, 12_000, nil)
		if got, err := peerKeysend(ctx, net.Peer, q.Lightning.PaymentHash); err != nil || got != 12_000 {
			t.Fatalf("lightningd received %d msat: %v", got, err)
		}
		lookedUp(t, n, q)

		// The answer lost (a crash as the node sends): the payment stays
		// Pending, and a Hearth started later settles it from the node.
		stop()
		lost := ledger.New(db, lostAnswer{n}, nil, ledger.Config{PayTimeout: 30 * time.Second}, nil)
		r, _, err := lost.Pay(ctx, alice, ledger.PayRequest{Input: net.LND.Pubkey, AmountMsat: new(int64(7_000))})
		if err != nil || r.Status != ledger.StatusPending {
			t.Fatalf("a keysend whose answer was lost: %+v, %v", r, err)
		}
		stop = books.Start(n, nil, nil)
		r = books.WaitPayment(r.ID, ledger.StatusSettled)
		if amount, _, err := net.LND.Keysent(ctx, r.Lightning.PaymentHash); err != nil || amount != 7_000 {
			t.Fatalf("lnd received %d msat: %v", amount, err)
		}
		lookedUp(t, n, r)

		spent := 21_000 + *p.FeeMsat + 12_000 + *q.FeeMsat + 7_000 + *r.FeeMsat
		for _, bad := range []ledger.PayRequest{
			{Input: net.LND.Pubkey},
			{Input: net.LND.Pubkey, AmountMsat: new(int64(1_000)), TLVRecords: map[uint64][]byte{5482373484: make([]byte, 32)}},
			{Input: net.LND.Pubkey, AmountMsat: new(int64(1_000)), TLVRecords: map[uint64][]byte{100: []byte("x")}},
			{Input: net.Hearth.Pubkey, AmountMsat: new(int64(1_000))},
		} {
			if _, _, err := books.Led.Pay(ctx, alice, bad); err == nil {
				t.Fatalf("%+v was paid", bad)
			}
		}
		if b := books.Balance(alice); b.AvailableMsat != 500_000-spent || b.ReservedMsat != 0 {
			t.Fatalf("balance after the refusals %+v, spent %d", b, spent)
		}

		key, err := btcec.NewPrivateKey()
		if err != nil {
			t.Fatal(err)
		}
		stranger := hex.EncodeToString(key.PubKey().SerializeCompressed())
		failed, _, err := books.Led.Pay(ctx, alice, ledger.PayRequest{Input: stranger, AmountMsat: new(int64(5_000))})
		if err != nil || failed.Status != ledger.StatusFailed {
			t.Fatalf("a keysend to a stranger: %+v, %v", failed, err)
		}
		if b := books.Balance(alice); b.AvailableMsat != 500_000-spent || b.ReservedMsat != 0 {
			t.Fatalf("balance after the failure %+v, spent %d", b, spent)
		}
		if res, err := n.LookupPayment(ctx, failed.Lightning.PaymentHash); err != nil || res.State != ledger.PaymentUnknown {
			t.Fatalf("the node knows of the failed keysend: %+v %v", res, err)
		}
		books.Check()
	})
}

// keysend has walletID pay amount to node pubkey with records, and checks
// it Settled with a preimage of its hash.
func keysend(t *testing.T, books *ledgertest.Books, walletID, pubkey string, amount int64, records map[uint64][]byte) *ledger.Payment {
	t.Helper()
	p, _, err := books.Led.Pay(context.Background(), walletID, ledger.PayRequest{Input: pubkey, AmountMsat: &amount, TLVRecords: records})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != ledger.StatusSettled || p.FeeMsat == nil || p.Lightning == nil || p.Lightning.PaymentPreimage == nil ||
		p.Lightning.Destination == nil || *p.Lightning.Destination != pubkey {
		reason := ""
		if p.Error != nil {
			reason = *p.Error
		}
		t.Fatalf("keysend %s %q: %+v %+v", p.Status, reason, p, p.Lightning)
	}
	preimage, _ := hex.DecodeString(*p.Lightning.PaymentPreimage)
	if sum := sha256.Sum256(preimage); hex.EncodeToString(sum[:]) != p.Lightning.PaymentHash {
		t.Fatalf("preimage %s is not that of %s", *p.Lightning.PaymentPreimage, p.Lightning.PaymentHash)
	}
	return p
}

// lookedUp checks that the node reports p as the ledger recorded it.
func lookedUp(t *testing.T, n interface {
	LookupPayment(context.Context, string) (*ledger.NodePaymentResult, error)
}, p *ledger.Payment) {
	t.Helper()
	res, err := n.LookupPayment(context.Background(), p.Lightning.PaymentHash)
	if err != nil || res.State != ledger.PaymentSucceeded || res.Preimage != *p.Lightning.PaymentPreimage || res.FeeMsat != *p.FeeMsat {
		t.Fatalf("lookup of %s = %+v %v, recorded fee %d", p.Lightning.PaymentHash, res, err, *p.FeeMsat)
	}
}

// peerKeysend is the amount lightningd's keysend plugin took for hash: an
// invoice it made and marked paid.
func peerKeysend(ctx context.Context, peer *regtest.CLNNode, hash string) (int64, error) {
	var res struct {
		Invoices []struct {
			Status             string `json:"status"`
			AmountReceivedMsat int64  `json:"amount_received_msat"`
		} `json:"invoices"`
	}
	if err := peer.Call(ctx, &res, "listinvoices", map[string]any{"payment_hash": hash}); err != nil {
		return 0, err
	}
	if len(res.Invoices) != 1 || res.Invoices[0].Status != "paid" {
		return 0, errors.New("no paid keysend invoice " + hash)
	}
	return res.Invoices[0].AmountReceivedMsat, nil
}

// lostAnswer is the backend of a Hearth that crashed as the node sent a
// keysend: the node sends it, and no answer reaches the ledger.
type lostAnswer struct{ *cln.Node }

func (l lostAnswer) Keysend(ctx context.Context, req ledger.NodeKeysend) (*ledger.NodePaymentResult, error) {
	if _, err := l.Node.Keysend(ctx, req); err != nil {
		return nil, err
	}
	return nil, errors.New("the connection to the node was lost")
}
