package ledger

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
)

// Receiving keysend: a payment the node took with no invoice of Hearth's,
// its preimage drawn by the payer. The ledger writes an invoice for it,
// Settled, into the wallet whose keysend id the payer put in custom record
// KeysendIDRecord (Podcast Index's keysend address: the node's key, and
// 696969 = the id), else into the operator's wallet, and credits that
// wallet: one transaction, once per payment hash, like a deposit
// (onchain.go).

// KeysendIDRecord is the custom record whose value, UTF-8 text, names the
// wallet a keysend is for: its keysend id (Podcast Index's customKey).
const KeysendIDRecord = 696969

// DefaultOperator is the user whose wallet takes the keysends that name
// no wallet of the instance: the admin who signs in with the password
// (auth.AdminUserID).
const DefaultOperator = "admin"

// keysendIDBytes is the length of a keysend id, drawn at random, before
// hex.
const keysendIDBytes = 12

// KeysendID returns walletID's keysend id, drawing it the first time: of
// concurrent first calls, one draw is kept (the update is conditional on
// the wallet having none) and every call answers it.
func (s *Service) KeysendID(ctx context.Context, walletID string) (string, error) {
	var raw [keysendIDBytes]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("drawing a keysend id: %w", err)
	}
	_, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Table("wallets").Set("keysend_id = ?", hex.EncodeToString(raw[:])).
			Where("id = ?", walletID).Where("keysend_id IS NULL").Exec(ctx)
	})
	if err != nil {
		return "", fmt.Errorf("drawing the keysend id of wallet %s: %w", walletID, err)
	}
	var id sql.NullString
	err = s.db.W.NewSelect().Table("wallets").Column("keysend_id").Where("id = ?", walletID).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !id.Valid {
		return "", ErrWalletNotFound
	}
	if err != nil {
		return "", fmt.Errorf("reading the keysend id of wallet %s: %w", walletID, err)
	}
	return id.String, nil
}

// receiveKeysend writes and credits the invoice of a keysend the node
// received, st, whose payment hash the ledger does not know. applied is
// false when another delivery of it was first: the insert of the invoice,
// conditional on its payment hash being free, has a single winner, and
// only the winner credits.
func (s *Service) receiveKeysend(ctx context.Context, st InvoiceSettlement) (applied bool, err error) {
	if st.AmountMsat <= 0 {
		return false, fmt.Errorf("keysend %s: amount %d msat", st.PaymentHash, st.AmountMsat)
	}
	pre, err := hex.DecodeString(st.Preimage)
	if sum := sha256.Sum256(pre); err != nil || len(pre) != 32 || hex.EncodeToString(sum[:]) != st.PaymentHash {
		return false, fmt.Errorf("keysend %s: its preimage is not that of its payment hash", st.PaymentHash)
	}
	now := s.timestamp()
	paidAt := now
	if !st.SettledAt.IsZero() {
		paidAt = st.SettledAt.UTC().Truncate(time.Microsecond)
	}
	records := customRecords(st.CustomRecords)
	amount, zero := st.AmountMsat, int64(0)
	var inv *Invoice
	err = s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		applied = false
		walletID, err := s.keysendWallet(ctx, tx, keysendTarget(records), now)
		if err != nil {
			return err
		}
		inv = &Invoice{ID: newID(), WalletID: walletID, AmountMsat: &amount, AmountReceivedMsat: &amount,
			Status: StatusSettled, Ledger: LedgerLightning, FeeMsat: &zero, PaymentTime: &paidAt, CreatedAt: now,
			UpdatedAt: &now, Bolt11: "keysend:" + st.PaymentHash, PaymentHash: st.PaymentHash,
			PaymentPreimage: &st.Preimage, ExpiresAt: paidAt, Keysend: true, TLVText: recordsText(records)}
		// No conflict target, as a deposit's: the payment hash makes both
		// payment_hash and bolt11.
		res, err := tx.NewInsert().Model(inv).Value("event_id", s.db.EventID()).
			On("CONFLICT DO NOTHING").Returning("NULL").Exec(ctx)
		if applied, err = affected(res, err); err != nil || !applied {
			if err != nil {
				return fmt.Errorf("recording keysend %s: %w", st.PaymentHash, err)
			}
			return nil
		}
		return s.credit(ctx, tx, walletID, amount, now)
	})
	if err != nil || !applied {
		return false, err
	}
	s.publish(ctx, event.InvoiceSettled, inv.WalletID, inv.ID, inv.present(s.now()))
	return true, nil
}

// keysendWallet is the wallet of keysend id, or, when no wallet has it,
// the operator's, made if it is missing.
func (s *Service) keysendWallet(ctx context.Context, tx bun.Tx, id string, now time.Time) (string, error) {
	var walletID string
	if id != "" {
		err := tx.NewSelect().Table("wallets").Column("id").Where("keysend_id = ?", id).Scan(ctx, &walletID)
		if err == nil {
			return walletID, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return "", fmt.Errorf("finding the wallet of keysend id %q: %w", id, err)
		}
	}
	operator := s.cfg.KeysendOperator
	_, err := tx.ExecContext(ctx, "INSERT INTO wallets (id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
		uuid.NewString(), operator, now)
	if err != nil {
		return "", fmt.Errorf("making the wallet of %s: %w", operator, err)
	}
	if err := tx.NewSelect().Table("wallets").Column("id").Where("user_id = ?", operator).Scan(ctx, &walletID); err != nil {
		return "", fmt.Errorf("reading the wallet of %s: %w", operator, err)
	}
	return walletID, nil
}

// keysendTarget is the keysend id record KeysendIDRecord names: "" when
// there is none or it is no UTF-8 text.
func keysendTarget(records map[uint64][]byte) string {
	v, ok := records[KeysendIDRecord]
	if !ok || len(v) == 0 || !utf8.Valid(v) {
		return ""
	}
	return string(v)
}

// customRecords keeps of a node's records the payer's own: types 65536 and
// up, the preimage's aside.
func customRecords(in map[uint64][]byte) map[uint64][]byte {
	out := make(map[uint64][]byte, len(in))
	for typ, v := range in {
		if typ >= minCustomRecord && typ != KeysendPreimageRecord {
			out[typ] = v
		}
	}
	return out
}

// KeysendAddress is where a wallet receives keysend payments: Podcast
// Index's keysend address, the node's key with the wallet's keysend id as
// the value of custom record 696969.
type KeysendAddress struct {
	Pubkey      string `json:"pubkey"`
	CustomKey   string `json:"custom_key"`
	CustomValue string `json:"custom_value"`
}

// KeysendAddressOf returns walletID's keysend address. The embedded node
// reaches no other node, so nobody can keysend to it: ErrNoExternalNode.
func (s *Service) KeysendAddressOf(ctx context.Context, walletID string) (*KeysendAddress, error) {
	if _, local := s.node.(Local); local {
		return nil, ErrNoExternalNode.Reasonf("the Lightning node receives no keysend payments: it reaches no other node")
	}
	id, err := s.KeysendID(ctx, walletID)
	if err != nil {
		return nil, err
	}
	info, err := s.node.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the node's key: %w", err)
	}
	return &KeysendAddress{Pubkey: info.Pubkey, CustomKey: strconv.Itoa(KeysendIDRecord), CustomValue: id}, nil
}
