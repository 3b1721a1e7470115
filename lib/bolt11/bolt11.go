// Package bolt11 decodes BOLT11 invoices into the ledger's terms, with
// lnd's zpay32 (which checks the signature and recovers the payee). The
// node backends share it; it never panics on untrusted input, and what it
// refuses it explains in a person's words (explain.go).
package bolt11

import (
	"encoding/hex"
	"errors"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/lightningnetwork/lnd/zpay32"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Decode parses a BOLT11 invoice of the network params. Its errors are
// ledger.ErrUnsupportedInput faults whose reasons say what is wrong.
func Decode(bolt11 string, params *chaincfg.Params) (d *ledger.DecodedInvoice, err error) {
	defer func() {
		// zpay32 is robust, but a decoder of untrusted bytes must never
		// take the server down.
		if r := recover(); r != nil {
			d, err = nil, invalid(errors.New("malformed invoice"))
		}
	}()
	if err := explain(bolt11, params); err != nil {
		return nil, err
	}
	inv, err := zpay32.Decode(bolt11, params)
	if err != nil {
		return nil, invalid(err)
	}
	if inv.PaymentHash == nil || inv.Destination == nil {
		return nil, invalid(errors.New("it lacks a payment hash or payee"))
	}
	d = &ledger.DecodedInvoice{
		PaymentHash: hex.EncodeToString(inv.PaymentHash[:]),
		PayeePubkey: hex.EncodeToString(inv.Destination.SerializeCompressed()),
		CreatedAt:   inv.Timestamp,
		ExpiresAt:   inv.Timestamp.Add(inv.Expiry()),
	}
	if inv.MilliSat != nil {
		d.AmountMsat = int64(*inv.MilliSat)
	}
	if inv.Description != nil {
		d.Description = *inv.Description
	}
	if inv.DescriptionHash != nil {
		d.DescriptionHash = hex.EncodeToString(inv.DescriptionHash[:])
	}
	return d, nil
}
