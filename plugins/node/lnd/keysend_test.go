package lnd_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A keysend to the peer, with a Podcasting 2.0 boostagram (record
// 7629169): Settled with the preimage Hearth drew, the peer credited the
// amount with the boost intact; the record shows the destination and the
// records. Refused before anything is reserved: no amount, a protocol
// record type, Hearth's own node.
func TestKeysendToThePeer(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		alice := h.Wallet("alice")
		h.fund(alice, 500_000)
		boost := []byte(`{"action":"boost","value_msat_total":21000,"app_name":"Hearth","message":"great show"}`)
		p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: net.Peer.Pubkey, AmountMsat: new(int64(21_000)),
			TLVRecords: map[uint64][]byte{7629169: boost}, IdempotencyKey: "boost-1"})
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != ledger.StatusSettled || p.Lightning == nil || p.Lightning.PaymentPreimage == nil ||
			p.Lightning.Destination == nil || *p.Lightning.Destination != net.Peer.Pubkey {
			t.Fatalf("keysend = %+v %+v", p, p.Lightning)
		}
		var shown map[string]string
		if err := json.Unmarshal(p.Lightning.TLVRecords, &shown); err != nil || len(shown) != 1 || shown["7629169"] == "" {
			t.Fatalf("the record's tlv_records %s: %v", p.Lightning.TLVRecords, err)
		}
		amount, records, err := net.Peer.Keysent(ctx, p.Lightning.PaymentHash)
		if err != nil {
			t.Fatal(err)
		}
		if amount != 21_000 || string(records[7629169]) != string(boost) || len(records[ledger.KeysendPreimageRecord]) != 32 {
			t.Fatalf("the peer received %d msat, records %v", amount, records)
		}
		// A retry with the key is the same payment; with other records, refused.
		again, created, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: net.Peer.Pubkey, AmountMsat: new(int64(21_000)),
			TLVRecords: map[uint64][]byte{7629169: boost}, IdempotencyKey: "boost-1"})
		if err != nil || created || again.ID != p.ID {
			t.Fatalf("retry = %+v, created %v, %v", again, created, err)
		}
		if _, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: net.Peer.Pubkey, AmountMsat: new(int64(21_000)),
			TLVRecords: map[uint64][]byte{7629169: []byte("other")}, IdempotencyKey: "boost-1"}); !errors.Is(err, ledger.ErrIdempotencyReuse) {
			t.Fatalf("the key with other records: %v", err)
		}

		fee := *p.FeeMsat
		before := h.Balance(alice)
		for _, bad := range []ledger.PayRequest{
			{Input: net.Peer.Pubkey},
			{Input: net.Peer.Pubkey, AmountMsat: new(int64(1_000)), TLVRecords: map[uint64][]byte{5482373484: make([]byte, 32)}},
			{Input: net.Peer.Pubkey, AmountMsat: new(int64(1_000)), TLVRecords: map[uint64][]byte{100: []byte("x")}},
			{Input: net.Hearth.Pubkey, AmountMsat: new(int64(1_000))},
		} {
			if _, _, err := h.Led.Pay(ctx, alice, bad); err == nil {
				t.Fatalf("%+v was paid", bad)
			}
		}
		if b := h.Balance(alice); b != before || b.AvailableMsat != 500_000-21_000-fee || b.ReservedMsat != 0 {
			t.Fatalf("balance = %+v (before the refusals %+v, fee %d)", b, before, fee)
		}
		h.Check()
	})
}
