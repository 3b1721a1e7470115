package cln

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/lightningnetwork/lnd/htlcswitch/hop"
	"github.com/lightningnetwork/lnd/lnwire"
	"github.com/lightningnetwork/lnd/record"
	"github.com/lightningnetwork/lnd/tlv"
)

// The payloads of a route of three hops, as getroute answers it, read back
// by lnd's own parser and its checks for a forwarding node and a payee:
// each intermediate hop forwards the next hop's amount, at the next hop's
// expiry on top of the height, over the next hop's channel; the last gets
// what arrives, its expiry, and the records; each payload has its length
// first, as createonion wants.
func TestOnionHops(t *testing.T) {
	steps := []routeStep{
		{ID: "02aa", Channel: "103x1x0", AmountMsat: 21_002, Delay: 52},
		{ID: "02bb", Channel: "110x2x1", AmountMsat: 21_001, Delay: 46},
		{ID: "02cc", Channel: "120x3x0", AmountMsat: 21_000, Delay: 40},
	}
	preimage := bytes.Repeat([]byte{7}, 32)
	boost := []byte(`{"action":"boost"}`)
	hops, err := onionHops(steps, 500, record.CustomSet{record.KeySendType: preimage, 7629169: boost})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		amount uint64
		cltv   uint32
		next   string
	}{{21_001, 546, "110x2x1"}, {21_000, 540, "120x3x0"}, {21_000, 540, ""}}
	for i, h := range hops {
		last := i == len(hops)-1
		if h.Pubkey != steps[i].ID {
			t.Fatalf("hop %d is for %s", i, h.Pubkey)
		}
		raw, err := hex.DecodeString(h.Payload)
		if err != nil {
			t.Fatal(err)
		}
		r := bytes.NewReader(raw)
		var buf [8]byte
		if n, err := tlv.ReadVarInt(r, &buf); err != nil || int(n) != r.Len() {
			t.Fatalf("hop %d: length %d for %d bytes (%v)", i, n, r.Len(), err)
		}
		p, parsed, err := hop.ParseTLVPayload(r)
		if err != nil {
			t.Fatalf("hop %d: %v", i, err)
		}
		if err := hop.ValidateTLVPayload(parsed, last, false); err != nil {
			t.Fatalf("hop %d refused by lnd: %v", i, err)
		}
		fwd := p.ForwardingInfo()
		if uint64(fwd.AmountToForward) != want[i].amount || fwd.OutgoingCLTV != want[i].cltv {
			t.Fatalf("hop %d forwards %d msat at %d, want %+v", i, fwd.AmountToForward, fwd.OutgoingCLTV, want[i])
		}
		next := fwd.NextHop.UnwrapLeftOr(lnwire.ShortChannelID{})
		if last {
			if next != (lnwire.ShortChannelID{}) || !bytes.Equal(p.CustomRecords()[record.KeySendType], preimage) ||
				!bytes.Equal(p.CustomRecords()[7629169], boost) {
				t.Fatalf("the last hop: next %s, records %v", next, p.CustomRecords())
			}
		} else if strings.ReplaceAll(next.String(), ":", "x") != want[i].next || len(p.CustomRecords()) != 0 {
			t.Fatalf("hop %d forwards over %s with records %v, want %s", i, next, p.CustomRecords(), want[i].next)
		}
	}
	if _, err := onionHops([]routeStep{{ID: "02aa", Channel: "1x1x1"}, {ID: "02bb", Channel: "103:1:0"}}, 500, nil); err == nil {
		t.Fatal("a channel id in another form was taken")
	}
}
