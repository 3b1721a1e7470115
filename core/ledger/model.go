package ledger

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Statuses and ledgers, as on the wire.
const (
	StatusPending = "Pending"
	StatusSettled = "Settled"
	StatusExpired = "Expired" // derived: a Pending invoice past expires_at
	StatusFailed  = "Failed"
	// A hold invoice (hold.go) paid and held until its owner settles or
	// cancels it, and one cancelled.
	StatusAccepted  = "Accepted"
	StatusCancelled = "Cancelled"

	LedgerLightning = "Lightning"
	LedgerInternal  = "Internal"
	LedgerOnchain   = "Onchain"
)

// Invoice is a request for money into a wallet.
type Invoice struct {
	bun.BaseModel `bun:"table:invoices"`

	ID                 string     `bun:"id,pk" json:"id"`
	WalletID           string     `bun:"wallet_id,notnull" json:"wallet_id"`
	Description        *string    `bun:"description" json:"description,omitempty"`
	AmountMsat         *int64     `bun:"amount_msat" json:"amount_msat,omitempty"`
	AmountReceivedMsat *int64     `bun:"amount_received_msat" json:"amount_received_msat,omitempty"`
	Status             string     `bun:"status,notnull" json:"status"`
	Ledger             string     `bun:"ledger,notnull" json:"ledger"`
	FeeMsat            *int64     `bun:"fee_msat" json:"fee_msat,omitempty"`
	PaymentTime        *time.Time `bun:"payment_time" json:"payment_time,omitempty"`
	CreatedAt          time.Time  `bun:"created_at,notnull" json:"created_at"`
	UpdatedAt          *time.Time `bun:"updated_at" json:"updated_at,omitempty"`
	LnInvoice          *LnInvoice `bun:"-" json:"ln_invoice,omitempty"`
	// BitcoinOutput is the output that paid an Onchain invoice (onchain.go).
	BitcoinOutput *BitcoinOutput `bun:"-" json:"bitcoin_output,omitempty"`
	// Tag is the plugin's that made the invoice, if it tagged it (tag.go).
	Tag *Tag `bun:"-" json:"tag,omitempty"`
	// PayerData is what the payer said of themselves when asking for the
	// invoice (LUD-18: a name, an identifier, an email), as received.
	PayerData json.RawMessage `bun:"-" json:"payer_data,omitempty"`
	// PayerDataText is PayerData as kept (migration 20261204000002).
	PayerDataText *string `bun:"payer_data" json:"-"`
	// Fiat is what the invoice was asked for in a currency, and at what
	// rate (fiat.go); nil for an amount in msat.
	Fiat *Fiat `bun:"-" json:"fiat,omitempty"`
	// Fiat as kept (migration 20261207000001).
	fiatColumns
	// Value is the amount received in the wallet's currency at the rate
	// when it settled, when a plugin presents it (valuation.go).
	Value *Fiat `bun:"-" json:"value,omitempty"`
	// Hold marks a hold invoice (hold.go, migration 20261209000001): paid,
	// it is Accepted until its owner settles it with the preimage or
	// cancels it.
	Hold bool `bun:"hold,notnull" json:"hold,omitempty"`
	// SettleDeadline is the block height at which the HTLCs of an Accepted
	// hold invoice expire, when they came through the node.
	SettleDeadline *int64 `bun:"settle_deadline" json:"settle_deadline,omitempty"`
	// SettleBy is when Hearth cancels an Accepted hold invoice left
	// unsettled: before its HTLCs expire, so that the node never closes a
	// channel over a forgotten hold.
	SettleBy *time.Time `bun:"cancel_at" json:"settle_by,omitempty"`
	// Keysend marks an invoice written for a keysend the node received
	// (keysendreceive.go, migration 20261210000001): no BOLT11 of
	// Hearth's, Settled from the start; TLVText is the payer's custom
	// records as JSON {type: hex}, shown as ln_invoice.tlv_records.
	Keysend bool    `bun:"keysend,notnull" json:"keysend,omitempty"`
	TLVText *string `bun:"tlv_records" json:"-"`

	DescriptionHash         *string   `bun:"description_hash" json:"-"`
	Bolt11                  string    `bun:"bolt11,notnull" json:"-"`
	PaymentHash             string    `bun:"payment_hash,notnull" json:"-"`
	PaymentSecret           string    `bun:"payment_secret,notnull" json:"-"`
	PaymentPreimage         *string   `bun:"payment_preimage" json:"-"`
	PayeePubkey             string    `bun:"payee_pubkey,notnull" json:"-"`
	MinFinalCLTVExpiryDelta int64     `bun:"min_final_cltv_expiry_delta,notnull" json:"-"`
	Expiry                  int64     `bun:"expiry,notnull" json:"-"`
	ExpiresAt               time.Time `bun:"expires_at,notnull" json:"-"`
	// EventID is the outbox position of the invoice's invoice.settled
	// event (migration 20261123000031_events); nil before it is Settled.
	EventID *int64 `bun:"event_id" json:"-"`
	// TagPlugin and TagValue are Tag's, as kept (migration
	// 20261127000004_invoice_tags); both set or neither.
	TagPlugin *string `bun:"tag_plugin" json:"-"`
	TagValue  *string `bun:"tag" json:"-"`
	// TagField is Tag.Field, as kept (migration 20261204000003); nil for
	// an invoice whose tag shows only under tag.
	TagField *string `bun:"tag_field" json:"-"`

	// The output of an Onchain invoice (migration 20261123000071).
	BtcTxID          *string `bun:"btc_txid" json:"-"`
	BtcVout          *int64  `bun:"btc_vout" json:"-"`
	BtcAddress       *string `bun:"btc_address" json:"-"`
	BtcAmountSat     *int64  `bun:"btc_amount_sat" json:"-"`
	BtcBlockHeight   *int64  `bun:"btc_block_height" json:"-"`
	BtcConfirmations *int64  `bun:"btc_confirmations" json:"-"`
}

// LnInvoice is the BOLT11 part of an invoice record.
type LnInvoice struct {
	// Bolt11 is the invoice's text; absent for a keysend, which had none.
	Bolt11                  string    `json:"bolt11,omitempty"`
	PaymentHash             string    `json:"payment_hash"`
	PaymentSecret           string    `json:"payment_secret"`
	DescriptionHash         *string   `json:"description_hash,omitempty"`
	PayeePubkey             string    `json:"payee_pubkey"`
	MinFinalCLTVExpiryDelta int64     `json:"min_final_cltv_expiry_delta"`
	Expiry                  int64     `json:"expiry"`
	ExpiresAt               time.Time `json:"expires_at"`
	// PaymentPreimage is the owner's proof that the invoice was paid:
	// shown once it is Settled, never before.
	PaymentPreimage *string `json:"payment_preimage,omitempty"`
	// TLVRecords are the custom records a keysend carried ({type: hex}),
	// as a keysend payment's are.
	TLVRecords json.RawMessage `json:"tlv_records,omitempty"`
}

// present fills the derived fields for the wire: the Expired status and the
// ln_invoice object.
func (i *Invoice) present(now time.Time) *Invoice {
	if i.Status == StatusPending && !now.Before(i.ExpiresAt) {
		i.Status = StatusExpired
	}
	if i.TagPlugin != nil && i.TagValue != nil {
		i.Tag = &Tag{Plugin: *i.TagPlugin, Value: *i.TagValue}
		if i.TagField != nil {
			i.Tag.Field = *i.TagField
		}
	}
	if i.PayerDataText != nil {
		i.PayerData = json.RawMessage(*i.PayerDataText)
	}
	i.Fiat = i.fiat()
	if i.Ledger == LedgerOnchain {
		i.presentOnchain()
		return i
	}
	i.LnInvoice = &LnInvoice{
		Bolt11:                  i.Bolt11,
		PaymentHash:             i.PaymentHash,
		PaymentSecret:           i.PaymentSecret,
		DescriptionHash:         i.DescriptionHash,
		PayeePubkey:             i.PayeePubkey,
		MinFinalCLTVExpiryDelta: i.MinFinalCLTVExpiryDelta,
		Expiry:                  i.Expiry,
		ExpiresAt:               i.ExpiresAt,
	}
	if i.Status == StatusSettled {
		i.LnInvoice.PaymentPreimage = i.PaymentPreimage
	}
	if i.Keysend {
		i.LnInvoice.Bolt11 = ""
		if i.TLVText != nil {
			i.LnInvoice.TLVRecords = json.RawMessage(*i.TLVText)
		}
	}
	return i
}

// decoded is what decoding the invoice's BOLT11 text would give.
func (i *Invoice) decoded() *DecodedInvoice {
	d := &DecodedInvoice{
		PaymentHash: i.PaymentHash,
		PayeePubkey: i.PayeePubkey,
		CreatedAt:   i.CreatedAt,
		ExpiresAt:   i.ExpiresAt,
	}
	if i.AmountMsat != nil {
		d.AmountMsat = *i.AmountMsat
	}
	if i.Description != nil {
		d.Description = *i.Description
	}
	if i.DescriptionHash != nil {
		d.DescriptionHash = *i.DescriptionHash
	}
	return d
}

// Payment is money leaving a wallet.
type Payment struct {
	bun.BaseModel `bun:"table:payments"`

	ID          string            `bun:"id,pk" json:"id"`
	WalletID    string            `bun:"wallet_id,notnull" json:"wallet_id"`
	AmountMsat  int64             `bun:"amount_msat,notnull" json:"amount_msat"`
	FeeMsat     *int64            `bun:"fee_msat" json:"fee_msat,omitempty"`
	Status      string            `bun:"status,notnull" json:"status"`
	Ledger      string            `bun:"ledger,notnull" json:"ledger"`
	Error       *string           `bun:"error" json:"error,omitempty"`
	Description *string           `bun:"description" json:"description,omitempty"`
	PaymentTime *time.Time        `bun:"payment_time" json:"payment_time,omitempty"`
	CreatedAt   time.Time         `bun:"created_at,notnull" json:"created_at"`
	UpdatedAt   *time.Time        `bun:"updated_at" json:"updated_at,omitempty"`
	Lightning   *LightningPayment `bun:"-" json:"lightning,omitempty"`
	Internal    *InternalPayment  `bun:"-" json:"internal,omitempty"`
	Bitcoin     *BitcoinPayment   `bun:"-" json:"bitcoin,omitempty"`
	// APIKeyID is the API key that made the payment (budget.go).
	APIKeyID *string `bun:"api_key_id" json:"api_key_id,omitempty"`
	// Fiat is what the payment was asked for in a currency, and at what
	// rate (fiat.go); nil for an amount in msat.
	Fiat *Fiat `bun:"-" json:"fiat,omitempty"`
	// Fiat as kept (migration 20261208000001).
	fiatColumns
	// Value is the amount sent in the wallet's currency at the rate when
	// it settled, when a plugin presents it (valuation.go).
	Value *Fiat `bun:"-" json:"value,omitempty"`

	// ReservedMsat is what a pending external payment holds: amount + max fee.
	ReservedMsat    int64   `bun:"reserved_msat,notnull" json:"-"`
	PaymentHash     *string `bun:"payment_hash" json:"-"`
	PaymentPreimage *string `bun:"payment_preimage" json:"-"`
	Bolt11          *string `bun:"bolt11" json:"-"`
	IdempotencyKey  *string `bun:"idempotency_key" json:"-"`
	RequestHash     *string `bun:"request_hash" json:"-"`
	// LnAddress is the Lightning Address paid, and SuccessAction the
	// LNURL-pay success action (a JSON object), when a Resolver gave them.
	LnAddress     *string `bun:"ln_address" json:"-"`
	SuccessAction *string `bun:"success_action" json:"-"`
	// EventID is the outbox position of the payment's latest event
	// (payment.settled or payment.failed); nil while Pending.
	EventID *int64 `bun:"event_id" json:"-"`
	// Destination is the node a keysend paid, and TLVText the custom
	// records it carried as JSON {type: hex} (keysend.go, migration
	// 20261209000003).
	Destination *string `bun:"destination" json:"-"`
	TLVText     *string `bun:"tlv_records" json:"-"`
	// The destination and transaction of an Onchain payment (spend.go).
	BtcAddress *string `bun:"btc_address" json:"-"`
	BtcTxID    *string `bun:"btc_txid" json:"-"`
	// BudgetPeriod is the period of its key's budget that the payment was
	// charged in, nil when it counts against none; BudgetMsat what it has
	// charged there now (budget.go).
	BudgetPeriod *string `bun:"budget_period" json:"-"`
	BudgetMsat   int64   `bun:"budget_msat,notnull" json:"-"`
}

// LightningPayment is the Lightning part of a payment record.
type LightningPayment struct {
	PaymentHash     string          `json:"payment_hash"`
	PaymentPreimage *string         `json:"payment_preimage,omitempty"`
	LnAddress       *string         `json:"ln_address,omitempty"`
	SuccessAction   json.RawMessage `json:"success_action,omitempty"`
	// Destination is the node a keysend paid, TLVRecords the custom
	// records it carried ({type: hex}).
	Destination *string         `json:"destination,omitempty"`
	TLVRecords  json.RawMessage `json:"tlv_records,omitempty"`
}

// InternalPayment is the internal part of a payment record.
type InternalPayment struct {
	PaymentHash     *string         `json:"payment_hash,omitempty"`
	PaymentPreimage *string         `json:"payment_preimage,omitempty"`
	LnAddress       *string         `json:"ln_address,omitempty"`
	BtcAddress      *string         `json:"btc_address,omitempty"`
	SuccessAction   json.RawMessage `json:"success_action,omitempty"`
}

// present fills the wire's lightning or internal object. The preimage, the
// payer's proof of payment, shows on a Settled payment only: a payment
// that failed or is in flight proves nothing.
func (p *Payment) present() *Payment {
	var preimage *string
	if p.Status == StatusSettled {
		preimage = p.PaymentPreimage
	}
	switch p.Ledger {
	case LedgerLightning:
		hash := ""
		if p.PaymentHash != nil {
			hash = *p.PaymentHash
		}
		p.Lightning = &LightningPayment{PaymentHash: hash, PaymentPreimage: preimage, LnAddress: p.LnAddress, Destination: p.Destination}
		if p.TLVText != nil {
			p.Lightning.TLVRecords = json.RawMessage(*p.TLVText)
		}
		if p.SuccessAction != nil {
			p.Lightning.SuccessAction = json.RawMessage(*p.SuccessAction)
		}
	case LedgerOnchain:
		p.Bitcoin = presentSpend(p)
	case LedgerInternal:
		p.Internal = &InternalPayment{PaymentHash: p.PaymentHash, PaymentPreimage: preimage, LnAddress: p.LnAddress, BtcAddress: p.BtcAddress}
		if p.SuccessAction != nil {
			p.Internal.SuccessAction = json.RawMessage(*p.SuccessAction)
		}
	}
	p.Fiat = p.fiat()
	return p
}

// wallets is the table the ledger moves money in.
type walletRow struct {
	bun.BaseModel `bun:"table:wallets"`
	ID            string `bun:"id,pk"`
}
