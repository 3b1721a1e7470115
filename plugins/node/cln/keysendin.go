package cln

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"strconv"
	"strings"
	"time"

	"github.com/lightningnetwork/lnd/tlv"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Receiving keysend on Core Lightning. lightningd's own keysend plugin
// takes a keysend: it makes an invoice for it (label "keysend-…", the
// preimage the payer sent) that the node's invoice stream then shows
// paid, like any other. It keeps none of the payer's custom records, so
// the guard plugin, whose htlc_accepted hook runs before keysend's, keeps
// them in lightningd's datastore under keysendRecordsKey, and the stream
// reads them back: record 696969 names the wallet the ledger credits, and
// a boostagram (7629169) is kept with the payment.

// keysendLabelPrefix starts the label of the invoices lightningd's keysend
// plugin makes.
const keysendLabelPrefix = "keysend-"

// keysendRecordsKey is the datastore key of the custom records a keysend
// of hash carried.
func keysendRecordsKey(hash string) []string { return []string{"hearth", "keysend-records", hash} }

// keptRecords is what the guard plugin keeps of a keysend: when, and its
// custom records by type, hex.
type keptRecords struct {
	At      int64             `json:"at"` // unix seconds
	Records map[string]string `json:"records"`
}

// customRecordMin is the first type a sender's own records may have.
const customRecordMin = 65536

// noteKeysend keeps the custom records of a keysend arriving, before
// lightningd's keysend plugin takes it. Any other HTLC is left alone.
func (h *holder) noteKeysend(in *htlcAccepted) {
	fields, err := onionFields(in.Onion.Payload)
	if err != nil {
		return
	}
	if _, ok := fields[ledger.KeysendPreimageRecord]; !ok {
		return
	}
	records := map[string]string{}
	for typ, v := range fields {
		if typ >= customRecordMin && typ != ledger.KeysendPreimageRecord {
			records[strconv.FormatUint(uint64(typ), 10)] = hex.EncodeToString(v)
		}
	}
	if len(records) == 0 {
		return
	}
	raw, _ := json.Marshal(keptRecords{At: time.Now().Unix(), Records: records})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := datastoreRequest{Key: keysendRecordsKey(strings.ToLower(in.HTLC.PaymentHash)), String: string(raw), Mode: "create-or-replace"}
	if err := h.node.call(ctx, req, nil); err != nil {
		log.Printf("hearth invoice guard: keeping a keysend's records: %v", err)
	}
}

// onionFields reads the TLV records of an onion payload as lightningd's
// htlc_accepted hook gives it: with its length first.
func onionFields(payload string) (tlv.TypeMap, error) {
	raw, err := hex.DecodeString(payload)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(raw)
	var buf [8]byte
	if n, err := tlv.ReadVarInt(r, &buf); err != nil || n != uint64(r.Len()) {
		r = bytes.NewReader(raw) // no length: the stream alone
	}
	stream, err := tlv.NewStream()
	if err != nil {
		return nil, err
	}
	return stream.DecodeWithParsedTypesP2P(r)
}

// withKeysend marks st, the settlement of a paid invoice inv, as a keysend
// when lightningd's keysend plugin made inv, with the records the guard
// plugin kept.
func (n *Node) withKeysend(ctx context.Context, inv listedInvoice, st *ledger.InvoiceSettlement) error {
	if !strings.HasPrefix(inv.Label, keysendLabelPrefix) || !st.Settled {
		return nil
	}
	st.Keysend = true
	var res listdatastoreResponse
	if err := n.call(ctx, listdatastoreRequest{Key: keysendRecordsKey(inv.PaymentHash)}, &res); err != nil {
		return err
	}
	if len(res.Datastore) == 0 || res.Datastore[0].String == nil {
		return nil // none, or no guard plugin ran to keep them
	}
	var kept keptRecords
	if err := json.Unmarshal([]byte(*res.Datastore[0].String), &kept); err != nil {
		return fmt.Errorf("a keysend's records: %w", err)
	}
	st.CustomRecords = map[uint64][]byte{}
	for k, v := range kept.Records {
		typ, terr := strconv.ParseUint(k, 10, 64)
		val, verr := hex.DecodeString(v)
		if terr != nil || verr != nil {
			return fmt.Errorf("a keysend's record %s: not a type and hex", k)
		}
		st.CustomRecords[typ] = val
	}
	return nil
}
