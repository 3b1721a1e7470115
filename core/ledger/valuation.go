package ledger

import "time"

// A settled record's value in its wallet's currency, at the rate when it
// settled. The ledger keeps no rates: a plugin that keeps their history
// (the rates built-in) fills Valuation.Value when the API shows records,
// through the host's record:value capability.

// Valuation asks the value of one settled record.
type Valuation struct {
	WalletID   string
	AmountMsat int64
	// SettledAt is when the record settled.
	SettledAt time.Time
	// Value is filled by the presenter; nil when there is none (no rate
	// of that time, or the wallet reads no currency).
	Value *Fiat
}

// Valuations are the valuations of the settled records among invs and
// ps; apply copies what was filled onto the records.
func Valuations(invs []*Invoice, ps []*Payment) (vs []*Valuation, apply func()) {
	type target struct {
		v   *Valuation
		out **Fiat
	}
	var ts []target
	for _, i := range invs {
		if i.Status == StatusSettled && i.PaymentTime != nil && i.AmountReceivedMsat != nil {
			ts = append(ts, target{&Valuation{WalletID: i.WalletID, AmountMsat: *i.AmountReceivedMsat, SettledAt: *i.PaymentTime}, &i.Value})
		}
	}
	for _, p := range ps {
		if p.Status == StatusSettled && p.PaymentTime != nil {
			ts = append(ts, target{&Valuation{WalletID: p.WalletID, AmountMsat: p.AmountMsat, SettledAt: *p.PaymentTime}, &p.Value})
		}
	}
	vs = make([]*Valuation, len(ts))
	for i, t := range ts {
		vs[i] = t.v
	}
	return vs, func() {
		for _, t := range ts {
			*t.out = t.v.Value
		}
	}
}
