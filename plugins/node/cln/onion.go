package cln

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/lightningnetwork/lnd/lnwire"
	"github.com/lightningnetwork/lnd/record"
	"github.com/lightningnetwork/lnd/routing/route"
	"github.com/lightningnetwork/lnd/tlv"
)

// The hops' payloads of a source-routed payment, in BOLT 4's TLV format,
// encoded by lnd's own route package: a hop forwards amt_to_forward (2)
// with expiry outgoing_cltv_value (4) over short_channel_id (6); the last
// hop gets what arrives, its expiry and the payer's records (a keysend's
// preimage among them).

// onionHops returns createonion's hops for the route getroute answered, at
// block height, with final's records for the last hop.
func onionHops(steps []routeStep, height uint32, final record.CustomSet) ([]onionHop, error) {
	hops := make([]onionHop, len(steps))
	for i, step := range steps {
		last := i == len(steps)-1
		next := step // what this hop forwards: the next one's HTLC, or, last, what arrives
		var nextChan uint64
		if !last {
			next = steps[i+1]
			scid, err := shortChannelID(next.Channel)
			if err != nil {
				return nil, err
			}
			nextChan = scid
		}
		h := route.Hop{AmtToForward: lnwire.MilliSatoshi(next.AmountMsat), OutgoingTimeLock: height + next.Delay}
		if last {
			h.CustomRecords = final
		}
		payload, err := packPayload(&h, nextChan, last)
		if err != nil {
			return nil, fmt.Errorf("the payload of hop %d (%s): %w", i, step.ID, err)
		}
		hops[i] = onionHop{Pubkey: step.ID, Payload: payload}
	}
	return hops, nil
}

// packPayload is hop's TLV payload, hex, with its length first (a BigSize,
// as createonion wants it).
func packPayload(hop *route.Hop, nextChan uint64, last bool) (string, error) {
	var stream bytes.Buffer
	if err := hop.PackHopPayload(&stream, nextChan, last); err != nil {
		return "", err
	}
	var out bytes.Buffer
	var buf [8]byte
	if err := tlv.WriteVarInt(&out, uint64(stream.Len()), &buf); err != nil {
		return "", err
	}
	out.Write(stream.Bytes())
	return hex.EncodeToString(out.Bytes()), nil
}

// shortChannelID reads lightningd's "block x tx x output" form of a
// channel's id.
func shortChannelID(s string) (uint64, error) {
	parts := strings.Split(s, "x")
	if len(parts) != 3 {
		return 0, fmt.Errorf("channel id %q is not block x tx x output", s)
	}
	var n [3]uint64
	for i, bits := range []int{24, 24, 16} {
		v, err := strconv.ParseUint(parts[i], 10, bits)
		if err != nil {
			return 0, fmt.Errorf("channel id %q: %w", s, err)
		}
		n[i] = v
	}
	return lnwire.ShortChannelID{BlockHeight: uint32(n[0]), TxIndex: uint32(n[1]), TxPosition: uint16(n[2])}.ToUint64(), nil
}
