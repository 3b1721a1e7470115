package onchain

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
)

// Payments to bitcoin addresses: the plugin is a payment-input resolver
// (ledger.Resolver) for a bare address of the node's network and a BIP21
// URI (bitcoin:<address>?amount=<BTC>; a lightning= parameter wins). A
// deposit address of this instance is paid inside it: another wallet's
// through an invoice of that wallet, settled at once; the payer's own is
// refused. Any other address is an on-chain spend (core/ledger/spend.go).

// networks are the chains an address may belong to, by the names nodes
// report.
var networks = map[string]*chaincfg.Params{
	"mainnet": &chaincfg.MainNetParams,
	"testnet": &chaincfg.TestNet3Params,
	"signet":  &chaincfg.SigNetParams,
	"regtest": &chaincfg.RegressionNetParams,
	"simnet":  &chaincfg.SimNetParams,
}

// dustSat is the smallest output each kind of address takes (Bitcoin
// Core's dust limits at the default relay fee).
func dustSat(a btcutil.Address) int64 {
	switch a.(type) {
	case *btcutil.AddressPubKeyHash:
		return 546
	case *btcutil.AddressScriptHash:
		return 540
	case *btcutil.AddressWitnessPubKeyHash:
		return 294
	default: // P2WSH, P2TR, future witness versions
		return 330
	}
}

// ResolvePayment answers an on-chain destination; ErrUnsupportedInput for
// anything else.
func (p *Plugin) ResolvePayment(ctx context.Context, walletID string, req ledger.PayRequest, estimate bool) (*ledger.Resolved, error) {
	dest, err := parseDestination(req.Input)
	if err != nil {
		return nil, err
	}
	if dest.lightning != "" {
		return p.lightning(dest, req)
	}
	params, err := p.params(ctx)
	if err != nil {
		return nil, err
	}
	addr, err := decodeAddress(dest.address, params)
	if err != nil {
		return nil, err
	}
	if p.chain == nil {
		return nil, ledger.ErrNoOnchain
	}
	amountMsat := dest.amountSat * 1000
	switch {
	case req.AmountMsat != nil && dest.amountSat > 0 && *req.AmountMsat != amountMsat:
		return nil, ledger.ErrAmountMismatch.Reasonf("amount_msat %d differs from the URI's amount %d msat", *req.AmountMsat, amountMsat)
	case req.AmountMsat != nil:
		amountMsat = *req.AmountMsat
	case dest.amountSat == 0:
		return nil, ledger.ErrInvalidAmount.Reasonf("amount_msat is required to pay a bitcoin address")
	}
	if amountMsat <= 0 || amountMsat%1000 != 0 {
		return nil, ledger.ErrInvalidAmount.Reasonf("amount_msat must be a positive whole number of satoshis (a multiple of 1000)")
	}
	if dust := dustSat(addr); amountMsat/1000 < dust {
		return nil, ledger.ErrInvalidAmount.Reasonf("%d sat is below the dust limit of %d sat for this address", amountMsat/1000, dust)
	}
	rate := int64(0)
	if req.FeeRateSatVB != nil {
		if rate = *req.FeeRateSatVB; rate < 1 || rate > maxFeeRate {
			return nil, errFeeRate.Reasonf("fee_rate_sat_vb must be between 1 and %d", maxFeeRate)
		}
	}
	canonical := addr.EncodeAddress()
	owners, err := p.walletsOf(ctx, []string{canonical})
	if err != nil {
		return nil, err
	}
	if owner, ok := owners[canonical]; ok {
		return p.internal(ctx, walletID, owner, canonical, amountMsat, estimate)
	}
	return &ledger.Resolved{Onchain: &ledger.OnchainTarget{Address: canonical, AmountSat: amountMsat / 1000,
		SatPerVByte: rate, TargetConf: p.cfg.TargetConf}}, nil
}

// internal pays a deposit address of this instance inside it.
func (p *Plugin) internal(ctx context.Context, payer, owner, address string, amountMsat int64, estimate bool) (*ledger.Resolved, error) {
	if owner == payer {
		return nil, ledger.ErrSelfPayment.Reasonf("Cannot pay your own deposit address")
	}
	if estimate {
		return &ledger.Resolved{Internal: true, AmountMsat: amountMsat}, nil
	}
	desc := "To bitcoin address " + address
	inv, err := p.led.Receive(ctx, owner, ledger.NewInvoice{AmountMsat: amountMsat, Description: &desc})
	if err != nil {
		return nil, err
	}
	return &ledger.Resolved{Bolt11: inv.LnInvoice.Bolt11, AmountMsat: amountMsat, BtcAddress: address}, nil
}

// lightning pays a BIP21 URI's lightning= invoice.
func (p *Plugin) lightning(dest *destination, req ledger.PayRequest) (*ledger.Resolved, error) {
	amount := dest.amountSat * 1000
	if req.AmountMsat != nil {
		amount = *req.AmountMsat
	}
	if p.decode != nil {
		if dec, err := p.decode.Decode(dest.lightning); err == nil && dec.AmountMsat > 0 && req.AmountMsat == nil {
			amount = dec.AmountMsat
		}
	}
	return &ledger.Resolved{Bolt11: dest.lightning, AmountMsat: amount}, nil
}

// params returns the chain of the node, asking it once.
func (p *Plugin) params(ctx context.Context) (*chaincfg.Params, error) {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	if p.net != nil {
		return p.net, nil
	}
	if p.info == nil {
		return nil, ledger.ErrNoOnchain
	}
	info, err := p.info(ctx)
	if err != nil {
		return nil, fmt.Errorf("asking the node its network: %w", err)
	}
	params, ok := networks[info.Network]
	if !ok {
		return nil, fmt.Errorf("the node reports an unknown network %q", info.Network)
	}
	p.net = params
	return params, nil
}

// decodeAddress decodes an address of params' network; an address of
// another network is ErrInvalidAddress, text that is no address at all
// ErrUnsupportedInput.
func decodeAddress(s string, params *chaincfg.Params) (btcutil.Address, error) {
	if a, err := btcutil.DecodeAddress(s, params); err == nil && a.IsForNet(params) {
		return a, nil
	}
	for name, other := range networks {
		if other == params {
			continue
		}
		if a, err := btcutil.DecodeAddress(s, other); err == nil && a.IsForNet(other) {
			return nil, ledger.ErrInvalidAddress.Reasonf("A bitcoin address of another network (%s), not %s", name, params.Name)
		}
	}
	return nil, ledger.ErrUnsupportedInput
}

// errBadURI is a bitcoin: URI Hearth cannot pay. (ErrUnsupportedInput
// would tell the ledger to ask the next resolver.)
var errBadURI = fault.New(fault.Unprocessable, "invalid_bitcoin_uri", "Invalid bitcoin: URI")

// errFeeRate is a fee rate out of bounds.
var errFeeRate = fault.New(fault.Unprocessable, "invalid_fee_rate", "Invalid fee rate")

// maxFeeRate bounds fee_rate_sat_vb: above it, a typo, not a wish.
const maxFeeRate = 5000

// destination is a parsed on-chain input.
type destination struct {
	address   string
	amountSat int64
	lightning string
}

// parseDestination reads a bare address or a BIP21 URI. It checks the
// URI's form only; the address is decoded later.
func parseDestination(input string) (*destination, error) {
	s := strings.TrimSpace(input)
	if len(s) < 8 || !strings.EqualFold(s[:8], "bitcoin:") {
		if s == "" || strings.ContainsAny(s, ":?@/ ") {
			return nil, ledger.ErrUnsupportedInput
		}
		return &destination{address: s}, nil
	}
	rest := s[8:]
	addr, query, _ := strings.Cut(rest, "?")
	d := &destination{address: addr}
	params, err := url.ParseQuery(query)
	if err != nil {
		return nil, errBadURI.Reasonf("Invalid bitcoin: URI: %v", err)
	}
	for key, vals := range params {
		k := strings.ToLower(key)
		switch {
		case k == "amount":
			sat, err := parseBTC(vals[0])
			if err != nil {
				return nil, err
			}
			d.amountSat = sat
		case k == "lightning":
			d.lightning = strings.TrimPrefix(strings.TrimPrefix(vals[0], "lightning:"), "LIGHTNING:")
		case strings.HasPrefix(k, "req-"):
			return nil, errBadURI.Reasonf("The bitcoin: URI requires %q, which Hearth does not support", key)
		}
	}
	if d.address == "" && d.lightning == "" {
		return nil, errBadURI.Reasonf("The bitcoin: URI names no address")
	}
	return d, nil
}

// parseBTC reads a BIP21 amount (decimal BTC, at most 8 decimals) in
// satoshis.
func parseBTC(s string) (int64, error) {
	bad := ledger.ErrInvalidAmount.Reasonf("Invalid amount %q in the bitcoin: URI", s)
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || len(frac) > 8 || len(whole) > 8 {
		return 0, bad
	}
	for _, r := range whole + frac {
		if r < '0' || r > '9' {
			return 0, bad
		}
	}
	frac += strings.Repeat("0", 8-len(frac))
	w, _ := strconv.ParseInt("0"+whole, 10, 64)
	f, _ := strconv.ParseInt(frac, 10, 64)
	sat := w*100_000_000 + f
	if sat <= 0 || sat > 21_000_000*100_000_000 {
		return 0, bad
	}
	return sat, nil
}

var _ ledger.Resolver = (*Plugin)(nil)
