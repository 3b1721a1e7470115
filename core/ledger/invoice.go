package ledger

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// MaxDescriptionBytes is the longest description a BOLT11 invoice carries.
const MaxDescriptionBytes = 639

// NewInvoice asks for an invoice.
type NewInvoice struct {
	AmountMsat  int64
	Description *string
	// Expiry in seconds; nil for the default.
	Expiry *int64
	// DescriptionHash, when 32 bytes, is committed to instead of the
	// description (LNURL-pay: the SHA-256 of the metadata). The
	// description is then kept on the record only, not encoded, and not
	// bound by MaxDescriptionBytes.
	DescriptionHash []byte
	// HashedDescription is the text DescriptionHash is the SHA-256 of
	// (the LNURL metadata, the zap request), for the nodes that need it
	// to commit to the hash (cln); it is neither kept nor returned.
	HashedDescription string
	// Tag, when set, marks the invoice as its plugin's (tag.go); the host
	// sets its Plugin.
	Tag *Tag
	// PayerData, when set, is what the payer said of themselves (LUD-18),
	// a JSON object of at most MaxPayerDataBytes, kept on the record.
	PayerData string
	// Fiat, instead of AmountMsat, asks for an amount in a currency:
	// converted at the rate of now, and kept on the record (fiat.go).
	Fiat *FiatAmount
}

// MaxPayerDataBytes bounds an invoice's payer data.
const MaxPayerDataBytes = 2048

// maxRecordDescription bounds a description kept on the record only.
const maxRecordDescription = 4096

// Filter selects invoices or payments.
type Filter struct {
	WalletID string // "" for every wallet
	Status   string // "" for any; Pending, Settled, Expired (invoices) or Failed (payments)
	Ledger   string // "" for any; Lightning, Internal or Onchain
	// PaymentHash, when set, keeps the records of that payment hash.
	PaymentHash string
	// APIKeyID, when set, keeps the payments that API key made (invoices
	// keep no key).
	APIKeyID string
	// From and Until, when set, keep the records created in that span
	// (both inclusive).
	From, Until *time.Time
	Page        store.Page
}

// CreateInvoice issues a BOLT11 invoice into walletID.
func (s *Service) CreateInvoice(ctx context.Context, walletID string, req NewInvoice) (*Invoice, error) {
	return s.issue(ctx, walletID, req, nil)
}

// issue checks req, has the node sign the invoice — a hold invoice for the
// payment hash of hold, when hold is set (hold.go) — and keeps it.
func (s *Service) issue(ctx context.Context, walletID string, req NewInvoice, hold *holdTerms) (*Invoice, error) {
	var asked *Fiat
	if req.Fiat != nil {
		if req.AmountMsat != 0 {
			return nil, fault.Invalidf("give amount_msat or an amount in a currency, not both")
		}
		msat, f, err := s.convert(ctx, *req.Fiat)
		if err != nil {
			return nil, err
		}
		req.AmountMsat, asked = msat, f
	}
	if req.AmountMsat <= 0 || req.AmountMsat > s.cfg.MaxInvoiceMsat {
		return nil, ErrInvalidAmount.Reasonf("amount_msat must be between 1 and %d", s.cfg.MaxInvoiceMsat)
	}
	expiry := s.cfg.DefaultExpiry
	if req.Expiry != nil {
		if *req.Expiry <= 0 || *req.Expiry > int64(s.cfg.MaxExpiry/time.Second) {
			return nil, ErrInvalidInvoice.Reasonf("expiry must be between 1 and %d seconds", int64(s.cfg.MaxExpiry/time.Second))
		}
		expiry = time.Duration(*req.Expiry) * time.Second
	}
	desc := ""
	if req.Description != nil {
		desc = *req.Description
		switch {
		case req.DescriptionHash == nil && len(desc) > MaxDescriptionBytes:
			return nil, ErrInvalidInvoice.Reasonf("description must be at most %d bytes", MaxDescriptionBytes)
		case len(desc) > maxRecordDescription:
			return nil, ErrInvalidInvoice.Reasonf("description must be at most %d bytes", maxRecordDescription)
		case req.DescriptionHash != nil:
			desc = "" // only the hash is encoded
		}
	}
	if req.DescriptionHash != nil && len(req.DescriptionHash) != 32 {
		return nil, ErrInvalidInvoice.Reasonf("description_hash must be 32 bytes")
	}
	if req.PayerData != "" && !validPayerData(req.PayerData) {
		return nil, ErrInvalidInvoice.Reasonf("payer data is a JSON object of at most %d bytes", MaxPayerDataBytes)
	}
	if req.Tag != nil && req.Tag.Field != "" && ValidTagField(req.Tag.Field) != nil {
		return nil, ErrInvalidInvoice.Reasonf("a tag's field is a lower-case name the record has not")
	}
	if req.Tag != nil && !validTag(req.Tag) {
		return nil, ErrInvalidInvoice.Reasonf("a tag is printable text of 1 to %d bytes", MaxTagBytes)
	}
	nreq := NodeInvoiceRequest{AmountMsat: req.AmountMsat, Description: desc,
		DescriptionHash: req.DescriptionHash, HashedDescription: req.HashedDescription, Expiry: expiry}
	var ni *NodeInvoice
	var err error
	if hold == nil {
		ni, err = s.node.CreateInvoice(ctx, nreq)
	} else {
		ni, err = hold.create(ctx, nreq)
	}
	if err != nil {
		return nil, fmt.Errorf("creating invoice at the node: %w", err)
	}
	created := ni.CreatedAt.UTC().Truncate(time.Microsecond)
	inv := &Invoice{
		ID:                      newID(),
		WalletID:                walletID,
		Description:             req.Description,
		AmountMsat:              &req.AmountMsat,
		Status:                  StatusPending,
		Ledger:                  LedgerLightning,
		CreatedAt:               created,
		Bolt11:                  ni.Bolt11,
		PaymentHash:             ni.PaymentHash,
		PaymentSecret:           ni.PaymentSecret,
		PayeePubkey:             ni.PayeePubkey,
		MinFinalCLTVExpiryDelta: int64(ni.MinFinalCLTVExpiryDelta),
		Expiry:                  int64(ni.Expiry / time.Second),
		ExpiresAt:               created.Add(ni.Expiry),
	}
	if ni.Preimage != "" {
		inv.PaymentPreimage = &ni.Preimage
	}
	if req.DescriptionHash != nil {
		h := hex.EncodeToString(req.DescriptionHash)
		inv.DescriptionHash = &h
	}
	if req.Tag != nil {
		inv.TagPlugin, inv.TagValue = &req.Tag.Plugin, &req.Tag.Value
		if req.Tag.Field != "" {
			inv.TagField = &req.Tag.Field
		}
	}
	if req.PayerData != "" {
		inv.PayerDataText = &req.PayerData
	}
	inv.keep(asked)
	inv.Hold = hold != nil
	_, err = s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(inv).Returning("NULL").Exec(ctx)
	})
	if hold != nil && store.IsUniqueViolation(err) {
		return nil, ErrHashInUse
	}
	if err != nil {
		return nil, fmt.Errorf("storing invoice: %w", err)
	}
	s.m.InvoiceCreated()
	s.recent.remember(inv)
	return inv.present(s.now()), nil
}

// Invoice returns invoice id of walletID ("" for any wallet).
func (s *Service) Invoice(ctx context.Context, walletID, id string) (*Invoice, error) {
	inv := new(Invoice)
	if err := s.record(ctx, inv, walletID, id, ErrInvoiceNotFound); err != nil {
		return nil, err
	}
	return inv.present(s.now()), nil
}

// Invoices lists invoices.
func (s *Service) Invoices(ctx context.Context, f Filter) ([]Invoice, error) {
	out := []Invoice{}
	now := s.timestamp()
	q, err := f.invoices(s.db.R.NewSelect().Model(&out), now)
	if err != nil {
		return nil, err
	}
	if err := f.Page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing invoices: %w", err)
	}
	for i := range out {
		out[i].present(now)
	}
	return out, nil
}

// invoices narrows a listing of invoices to f at now, but for its page.
func (f Filter) invoices(q *bun.SelectQuery, now time.Time) (*bun.SelectQuery, error) {
	if f.WalletID != "" {
		q = q.Where("wallet_id = ?", f.WalletID)
	}
	switch f.Status {
	case "":
	case StatusSettled:
		q = q.Where("status = ?", StatusSettled)
	case StatusAccepted, StatusCancelled:
		q = q.Where("status = ?", f.Status)
	case StatusPending:
		q = q.Where("status = ?", StatusPending).Where("expires_at > ?", now)
	case StatusExpired:
		// NOT (… > …), not <=: expired invoices grow without bound, and
		// SQLite, which keeps no statistics, would read every one of them
		// through invoices_pending_idx's range and sort them, where the
		// list's order reads a page.
		q = q.Where("status = ?", StatusPending).Where("NOT (expires_at > ?)", now)
	default:
		return nil, fault.Invalidf("status must be Pending, Accepted, Settled, Cancelled or Expired")
	}
	if f.Ledger != "" {
		q = q.Where("ledger = ?", f.Ledger)
	}
	return f.narrow(q), nil
}

// SettleInvoice applies the node's word that an invoice was paid: the
// invoice turns Settled and its wallet is credited, in one transaction, once.
// applied is false when the invoice was already settled (a replay).
func (s *Service) SettleInvoice(ctx context.Context, st InvoiceSettlement) (applied bool, err error) {
	var inv Invoice
	now := s.timestamp()
	paidAt := now
	if !st.SettledAt.IsZero() {
		paidAt = st.SettledAt.UTC().Truncate(time.Microsecond)
	}
	held := false
	err = s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		applied = false
		if err := tx.NewSelect().Model(&inv).Where("payment_hash = ?", st.PaymentHash).Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return errUnknownHash
			}
			return fmt.Errorf("reading invoice: %w", err)
		}
		// A hold invoice paid without its preimage, which its owner
		// keeps, is held, not settled (hold.go); with it, the node settled
		// what it held, on the owner's word (holdend.go).
		if held = inv.Hold && st.Preimage == ""; held {
			return nil
		}
		amount := st.AmountMsat
		if amount <= 0 && inv.AmountMsat != nil {
			amount = *inv.AmountMsat
		}
		q := tx.NewUpdate().Model((*Invoice)(nil)).
			Set("status = ?", StatusSettled).
			Set("ledger = ?", LedgerLightning).
			Set("amount_received_msat = ?", amount).
			Set("fee_msat = 0").
			Set("payment_time = ?", paidAt).
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", inv.ID)
		if inv.Hold {
			q = q.Where("status IN (?)", bun.In([]string{StatusPending, StatusAccepted})).Where("ledger = ?", LedgerLightning)
		} else {
			q = q.Where("status = ?", StatusPending)
		}
		if st.Preimage != "" {
			q = q.Set("payment_preimage = ?", st.Preimage)
		}
		won, err := affected(q.Exec(ctx))
		if err != nil || !won {
			return err
		}
		if err := s.credit(ctx, tx, inv.WalletID, amount, now); err != nil {
			return err
		}
		applied = true
		inv.Status, inv.Ledger, inv.AmountReceivedMsat, inv.PaymentTime = StatusSettled, LedgerLightning, &amount, &paidAt
		return nil
	})
	if err == nil && held {
		return s.acceptHeld(ctx, &inv, st)
	}
	if errors.Is(err, errUnknownHash) {
		if st.Keysend && !st.Held && !st.Cancelled {
			return s.receiveKeysend(ctx, st)
		}
		err = ErrInvoiceNotFound
	}
	if err != nil || !applied {
		if err == nil && inv.Ledger == LedgerInternal && st.Done == nil {
			// The node took money for an invoice that another wallet had
			// already paid inside the instance, in the moment before the
			// node invoice was cancelled: the payee is not credited twice,
			// and the operator has to return the outside payment. (The
			// embedded node's outsider, which waits on Done, moved no
			// money and is told the invoice is paid.)
			s.log.ErrorContext(ctx, "the node received a payment for an invoice already settled internally; refund the outside payer",
				"invoice_id", inv.ID, "payment_hash", st.PaymentHash, "amount_msat", st.AmountMsat)
		}
		return false, err
	}
	s.publish(ctx, event.InvoiceSettled, inv.WalletID, inv.ID, inv.present(s.now()))
	return true, nil
}

// errUnknownHash says that no invoice has a settlement's payment hash: a
// keysend the ledger writes one for, or ErrInvoiceNotFound.
var errUnknownHash = errors.New("no invoice of this payment hash")

// creditWallet adds a received amount to a wallet: amount twice, the
// time, the wallet id.
var creditWallet = store.NewHot(`UPDATE wallets SET available_msat = available_msat + ?,
	received_msat = received_msat + ?, updated_at = ? WHERE id = ?`)

// credit adds a received amount to a wallet.
func (s *Service) credit(ctx context.Context, tx bun.Tx, walletID string, amount int64, now time.Time) error {
	ok, err := affected(s.db.Exec(ctx, tx, creditWallet, amount, amount, now, walletID))
	if err != nil {
		return fmt.Errorf("crediting wallet %s: %w", walletID, err)
	}
	if !ok {
		return fmt.Errorf("crediting wallet %s: wallet missing", walletID)
	}
	return nil
}

// affected reports whether an update touched a row.
func affected(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// validPayerData reports whether s is a JSON object of at most
// MaxPayerDataBytes.
func validPayerData(s string) bool {
	if len(s) > MaxPayerDataBytes {
		return false
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &obj) == nil && obj != nil
}
