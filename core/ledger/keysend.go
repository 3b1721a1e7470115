package ledger

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Keysend: a payment to a node by its public key, with no invoice. The
// payer draws the preimage and sends it to the payee inside the onion
// (custom record 5482373484), beside any custom records of its own (a
// Podcasting 2.0 boostagram is 7629169). It is a Lightning payment like
// any other that leaves the instance: reserved, sent by the node,
// settled at the real fee or released (payexternal.go, outcome.go).

// KeysendPreimageRecord is the custom record that carries a keysend's
// preimage to the payee.
const KeysendPreimageRecord = 5482373484

// minCustomRecord is the first TLV type a sender may use for its own
// records (BOLT 4: the types below are the protocol's).
const minCustomRecord = 65536

// maxTLVBytes bounds the custom records of one payment, all told: the
// onion gives the last hop some 1,300 bytes.
const maxTLVBytes = 1024

// KeysendPayer is implemented by nodes that send keysend payments.
type KeysendPayer interface {
	// Keysend pays req. Errors are as Node.Pay's: a *PaymentFailure is
	// definite, any other error ambiguous.
	Keysend(ctx context.Context, req NodeKeysend) (*NodePaymentResult, error)
}

// NodeKeysend asks the node for a keysend payment.
type NodeKeysend struct {
	Pubkey      string // hex, 33 bytes
	AmountMsat  int64
	MaxFeeMsat  int64
	Preimage    string // hex
	PaymentHash string // hex, its SHA-256
	// Records are the payer's custom records, by type.
	Records map[uint64][]byte
	Timeout time.Duration
}

// nodePubkey reports whether s is a node's public key: 33 bytes of hex,
// compressed (02 or 03 first).
func nodePubkey(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) != 66 || (s[:2] != "02" && s[:2] != "03") {
		return "", false
	}
	if _, err := hex.DecodeString(s); err != nil {
		return "", false
	}
	return s, true
}

// checkRecords refuses custom records of the protocol's types, or too many
// bytes.
func checkRecords(records map[uint64][]byte) error {
	size := 0
	for typ, v := range records {
		if typ < minCustomRecord || typ == KeysendPreimageRecord {
			return ErrUnsupportedInput.Reasonf("tlv_records: type %d is not a custom record (%d and up, not %d)", typ, minCustomRecord, KeysendPreimageRecord)
		}
		size += len(v) + 16
	}
	if size > maxTLVBytes {
		return ErrUnsupportedInput.Reasonf("tlv_records: at most %d bytes in all", maxTLVBytes)
	}
	return nil
}

// resolveKeysend is the target of a payment to node pubkey.
func (s *Service) resolveKeysend(ctx context.Context, pubkey string, req PayRequest) (*target, error) {
	if req.AmountMsat == nil || *req.AmountMsat <= 0 {
		return nil, ErrInvalidAmount.Reasonf("amount_msat is required to pay a node by its key")
	}
	if err := checkRecords(req.TLVRecords); err != nil {
		return nil, err
	}
	if info, err := s.node.Info(ctx); err == nil && info.Pubkey == pubkey {
		return nil, ErrSelfPayment.Reasonf("a keysend to this instance's own node: pay a wallet's invoice or address instead")
	}
	return &target{keysend: pubkey, amount: *req.AmountMsat}, nil
}

// payKeysend reserves amount + max fee, has the node send the keysend with
// a preimage drawn here, and settles or releases as payExternal does.
func (s *Service) payKeysend(ctx context.Context, walletID string, t *target, req PayRequest, reqHash string) (*Payment, error) {
	kp, ok := s.node.(KeysendPayer)
	if !ok || !s.canPayExternal() {
		return nil, ErrNoExternalNode.Reasonf("the Lightning node sends no keysend payments")
	}
	var raw [32]byte
	if req.KeysendPreimage != "" {
		b, err := hex.DecodeString(req.KeysendPreimage)
		if err != nil || len(b) != 32 {
			return nil, ErrUnsupportedInput.Reasonf("a keysend's preimage is 32 bytes, hex")
		}
		raw = [32]byte(b)
	} else if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("drawing a preimage: %w", err)
	}
	sum := sha256.Sum256(raw[:])
	preimage, hash := hex.EncodeToString(raw[:]), hex.EncodeToString(sum[:])
	now := s.timestamp()
	maxFee := s.maxFee(t.amount)
	p := &Payment{ID: newID(), WalletID: walletID, AmountMsat: t.amount, Status: StatusPending, Ledger: LedgerLightning,
		CreatedAt: now, ReservedMsat: t.amount + maxFee, PaymentHash: &hash, RequestHash: &reqHash,
		Destination: &t.keysend, TLVText: recordsText(req.TLVRecords)}
	if req.IdempotencyKey != "" {
		p.IdempotencyKey = &req.IdempotencyKey
	}
	p.keep(req.asked)
	insert := func(ctx context.Context, tx bun.Tx, p *Payment) error {
		if err := s.insertPayment(ctx, tx, p); err != nil {
			return err
		}
		_, err := tx.NewUpdate().Model(p).Column("destination", "tlv_records").WherePK().Exec(ctx)
		return err
	}
	if err := s.reservePayment(ctx, p, req, now, "maximum fee", insert); err != nil {
		return nil, err
	}
	payCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.PayTimeout+5*time.Second)
	defer cancel()
	res, err := kp.Keysend(payCtx, NodeKeysend{Pubkey: t.keysend, AmountMsat: t.amount, MaxFeeMsat: maxFee,
		Preimage: preimage, PaymentHash: hash, Records: req.TLVRecords, Timeout: s.cfg.PayTimeout})
	if err := s.applyOutcome(payCtx, p.ID, res, err); err != nil {
		return nil, err
	}
	return s.Payment(ctx, walletID, p.ID)
}

// recordsText is records as kept: JSON {type: hex}, nil for none.
func recordsText(records map[uint64][]byte) *string {
	if len(records) == 0 {
		return nil
	}
	m := make(map[string]string, len(records))
	for typ, v := range records {
		m[strconv.FormatUint(typ, 10)] = hex.EncodeToString(v)
	}
	b, _ := json.Marshal(m) // strings: cannot fail
	s := string(b)
	return &s
}

// recordsHash writes records into a request hash in type order.
func recordsHash(w interface{ Write([]byte) (int, error) }, records map[uint64][]byte) {
	types := make([]uint64, 0, len(records))
	for typ := range records {
		types = append(types, typ)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	for _, typ := range types {
		fmt.Fprintf(w, "%d=%x;", typ, records[typ])
	}
}
