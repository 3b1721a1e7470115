package api

import (
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/fault"
)

// Keysend (core/ledger/keysend.go): a payment whose input is a node's
// public key carries custom records of the payer's; one the node receives
// is credited to the wallet its record 696969 names
// (core/ledger/keysendreceive.go).

// getMyKeysend answers the caller's keysend address: the node's key, and
// the caller's keysend id as record 696969's value.
func (s *Server) getMyKeysend(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := s.ledger.KeysendAddressOf(req.Context(), callerWallet(req.Context()))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, addr)
	return nil
}

// tlvRecords reads a keysend's custom records, {"<type>": "<hex>"}; nil
// for none.
func tlvRecords(in map[string]string) (map[uint64][]byte, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[uint64][]byte, len(in))
	for k, v := range in {
		typ, err := strconv.ParseUint(k, 10, 64)
		if err != nil {
			return nil, fault.Invalidf("tlv_records: %q is no record type (a decimal number)", k)
		}
		b, err := hex.DecodeString(v)
		if err != nil {
			return nil, fault.Invalidf("tlv_records: the value of %d is not hex", typ)
		}
		out[typ] = b
	}
	return out, nil
}
