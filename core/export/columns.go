package export

import (
	"strconv"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
)

// column is one column of a CSV export: its header and a record's cell.
type column[T any] struct {
	name  string
	value func(*T) string
}

// Directions, as the direction column writes them.
const (
	Sent     = "Sent"
	Received = "Received"
)

// paymentColumns are a payment export's columns; wallet adds wallet_id.
// Every amount is the ledger's own: msat as integers, and the same in sat
// as decimals of three places (exact). No fiat value is recorded with a
// payment, so none is written.
func paymentColumns(wallet bool) []column[ledger.Payment] {
	cols := []column[ledger.Payment]{
		{"id", func(p *ledger.Payment) string { return p.ID }},
		{"wallet_id", func(p *ledger.Payment) string { return p.WalletID }},
		{"created_at", func(p *ledger.Payment) string { return stamp(&p.CreatedAt) }},
		{"payment_time", func(p *ledger.Payment) string { return stamp(p.PaymentTime) }},
		{"status", func(p *ledger.Payment) string { return p.Status }},
		{"ledger", func(p *ledger.Payment) string { return p.Ledger }},
		{"direction", func(*ledger.Payment) string { return Sent }},
		{"amount_msat", func(p *ledger.Payment) string { return msat(&p.AmountMsat) }},
		{"amount_sat", func(p *ledger.Payment) string { return sat(&p.AmountMsat) }},
		{"fee_msat", func(p *ledger.Payment) string { return msat(p.FeeMsat) }},
		{"fee_sat", func(p *ledger.Payment) string { return sat(p.FeeMsat) }},
		{"description", func(p *ledger.Payment) string { return text(p.Description) }},
		{"payment_hash", func(p *ledger.Payment) string { return text(p.PaymentHash) }},
		{"bolt11", func(p *ledger.Payment) string { return text(p.Bolt11) }},
		{"ln_address", func(p *ledger.Payment) string { return text(p.LnAddress) }},
		{"btc_address", func(p *ledger.Payment) string { return text(p.BtcAddress) }},
		{"txid", func(p *ledger.Payment) string { return text(p.BtcTxID) }},
		{"error", func(p *ledger.Payment) string { return text(p.Error) }},
		{"api_key_id", func(p *ledger.Payment) string { return text(p.APIKeyID) }},
	}
	if !wallet {
		cols = append(cols[:1], cols[2:]...)
	}
	return cols
}

// invoiceColumns are an invoice export's columns; wallet adds wallet_id.
// amount_msat is what the invoice asked for, amount_received_msat what it
// was paid (set once Settled). No fiat value is recorded with an invoice,
// so none is written.
func invoiceColumns(wallet bool) []column[ledger.Invoice] {
	cols := []column[ledger.Invoice]{
		{"id", func(i *ledger.Invoice) string { return i.ID }},
		{"wallet_id", func(i *ledger.Invoice) string { return i.WalletID }},
		{"created_at", func(i *ledger.Invoice) string { return stamp(&i.CreatedAt) }},
		{"payment_time", func(i *ledger.Invoice) string { return stamp(i.PaymentTime) }},
		{"expires_at", func(i *ledger.Invoice) string {
			if i.Ledger == ledger.LedgerOnchain {
				return ""
			}
			return stamp(&i.ExpiresAt)
		}},
		{"status", func(i *ledger.Invoice) string { return i.Status }},
		{"ledger", func(i *ledger.Invoice) string { return i.Ledger }},
		{"direction", func(*ledger.Invoice) string { return Received }},
		{"amount_msat", func(i *ledger.Invoice) string { return msat(i.AmountMsat) }},
		{"amount_sat", func(i *ledger.Invoice) string { return sat(i.AmountMsat) }},
		{"amount_received_msat", func(i *ledger.Invoice) string { return msat(i.AmountReceivedMsat) }},
		{"amount_received_sat", func(i *ledger.Invoice) string { return sat(i.AmountReceivedMsat) }},
		{"fee_msat", func(i *ledger.Invoice) string { return msat(i.FeeMsat) }},
		{"description", func(i *ledger.Invoice) string { return text(i.Description) }},
		{"payment_hash", func(i *ledger.Invoice) string {
			if i.Ledger == ledger.LedgerOnchain {
				return "" // the ledger's own key, no Lightning hash
			}
			return i.PaymentHash
		}},
		{"bolt11", func(i *ledger.Invoice) string {
			if i.LnInvoice == nil {
				return ""
			}
			return i.LnInvoice.Bolt11
		}},
		{"btc_address", func(i *ledger.Invoice) string { return text(i.BtcAddress) }},
		{"txid", func(i *ledger.Invoice) string { return text(i.BtcTxID) }},
		{"tag", func(i *ledger.Invoice) string {
			if i.Tag == nil {
				return ""
			}
			return i.Tag.Plugin + ":" + i.Tag.Value
		}},
	}
	if !wallet {
		cols = append(cols[:1], cols[2:]...)
	}
	return cols
}

// stamp is a time as the API writes it (RFC 3339, UTC, to the
// microsecond kept), or "" for none.
func stamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func msat(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

// sat is msat in sat, exactly: three decimal places.
func sat(v *int64) string {
	if v == nil {
		return ""
	}
	n := *v
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	frac := strconv.FormatInt(n%1000, 10)
	return sign + strconv.FormatInt(n/1000, 10) + "." + "000"[len(frac):] + frac
}
