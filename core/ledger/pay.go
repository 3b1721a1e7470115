package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hearthwallet/hearth/core/store"
)

// Paying from a wallet: Pay takes a request and sends it where its input
// leads — an invoice of the instance (internal.go), a Lightning invoice of
// another node (payexternal.go), an on-chain address (spend.go) — after
// resolving it (paytarget.go); EstimateFee says what that would cost. A
// request with an Idempotency-Key returns the first payment made with it.

// PayRequest asks to pay from a wallet.
type PayRequest struct {
	Input      string
	AmountMsat *int64
	Comment    *string
	// FeeRateSatVB is the fee rate of an on-chain spend, in sat/vB; nil
	// for the node's estimate.
	FeeRateSatVB *int64
	// IdempotencyKey, when set, makes a retry return the first payment.
	IdempotencyKey string
	// KeyID is the API key that makes the payment, kept on its record
	// (api_key_id); "" for none. With a Budget, the budget's key is kept.
	KeyID string
	// Budget, when set, is the spending budget the payment counts against
	// (budget.go): refused with ErrBudgetExceeded, before any money moves,
	// when it would pass it.
	Budget *Budget
	// Fiat, instead of AmountMsat, asks for an amount in a currency
	// (fiat.go): converted at the rate of now, to a whole satoshi, and
	// kept on the payment record.
	Fiat *FiatAmount
	// TLVRecords are the custom records of a keysend payment (an Input
	// that is a node's public key: keysend.go), by type.
	TLVRecords map[uint64][]byte
	// KeysendPreimage, when set, is a keysend's preimage (hex, 32 bytes),
	// chosen by the payer; drawn by the ledger otherwise.
	KeysendPreimage string

	// asked is Fiat priced (priceSpend).
	asked *Fiat
}

// FeeEstimate answers POST /payments/fee-estimate.
type FeeEstimate struct {
	Ledger           string `json:"ledger"`
	AmountMsat       int64  `json:"amount_msat"`
	EstimatedFeeMsat *int64 `json:"estimated_fee_msat,omitempty"`
	MaximumFeeMsat   int64  `json:"maximum_fee_msat"`
	MaximumTotalMsat int64  `json:"maximum_total_msat"`
}

// Pay pays req from walletID. created is false when an Idempotency-Key
// retry returned an earlier payment.
func (s *Service) Pay(ctx context.Context, walletID string, req PayRequest) (p *Payment, created bool, err error) {
	reqHash := requestHash(req)
	if req.IdempotencyKey != "" {
		if p, err := s.byIdempotencyKey(ctx, walletID, req.IdempotencyKey, reqHash); p != nil || err != nil {
			return p, false, err
		}
	}
	if err := s.priceSpend(ctx, &req); err != nil {
		return nil, false, err
	}
	err = errNotOwn
	// A budget is charged in the payment's transaction, which the batches
	// of hearth_pay_own do not run: a budgeted payment goes the way of
	// SQLite's (payInternal takes the batches' wallet locks); so does one
	// asked in a currency, whose record keeps what was asked.
	if s.db.Dialect == store.Postgres && req.Budget == nil && req.asked == nil {
		// Many connections write at once, and round trips are the cost:
		// try an invoice of the instance in one statement (a function of
		// the database) without reading it first. SQLite, with its single
		// writer and no round trips, reads outside the transaction, by
		// resolve (or recalls the invoice: recent.go), and writes in
		// payInternal.
		if in, perr := ParseInput(req.Input); perr == nil {
			p, err = s.payOwn(ctx, walletID, in.Bolt11, req, reqHash)
		}
	}
	if errors.Is(err, errNotOwn) {
		// Not a Pending invoice of another wallet of the instance, by its
		// text: decode it to find out what it is, and pay it or say why not.
		p, err = s.payResolved(ctx, walletID, req, reqHash)
	}
	if err != nil && req.IdempotencyKey != "" {
		// A concurrent request with the same key may have won meanwhile
		// (and made this one fail as a race, a paid invoice or a unique
		// violation): its payment is the answer.
		if first, ferr := s.byIdempotencyKey(ctx, walletID, req.IdempotencyKey, reqHash); first != nil || ferr != nil {
			return first, false, ferr
		}
	}
	if errors.Is(err, errIdempotentRace) {
		err = ErrPaymentInFlight // the other unique index
	}
	return p, err == nil, err
}

// payResolved resolves req and pays what it names. An invoice recalled
// from the recent ones (recent.go) that its transaction found no longer
// Pending (paid meanwhile, by another replica or through the node) is
// forgotten and looked up again, once: the database says why it cannot be
// paid, or what it is now.
func (s *Service) payResolved(ctx context.Context, walletID string, req PayRequest, reqHash string) (*Payment, error) {
	for attempt := 0; ; attempt++ {
		t, err := s.resolve(ctx, walletID, req, false)
		if err != nil {
			return nil, err
		}
		var p *Payment
		switch {
		case t.internal != nil && t.internal.Hold:
			p, err = s.payHeld(ctx, walletID, t, req, reqHash)
		case t.internal != nil:
			p, err = s.payInternal(ctx, walletID, t, req, reqHash)
			if errors.Is(err, ErrInvoiceRace) && t.recalled {
				s.recent.forget(t.internal.Bolt11)
				// Only an invoice given as such: a resolver's
				// (a Lightning Address's) is not asked for again.
				if _, perr := ParseInput(req.Input); perr == nil && attempt == 0 {
					continue
				}
			}
		case t.onchain != nil:
			p, err = s.payOnchain(ctx, walletID, t, req, reqHash)
		case t.keysend != "":
			p, err = s.payKeysend(ctx, walletID, t, req, reqHash)
		default:
			p, err = s.payExternal(ctx, walletID, t, req, reqHash)
		}
		if err != nil {
			return nil, err
		}
		return s.finishSuccessAction(ctx, t, p), nil
	}
}

// EstimateFee says what paying req would cost, without paying.
func (s *Service) EstimateFee(ctx context.Context, walletID string, req PayRequest) (*FeeEstimate, error) {
	if err := s.priceSpend(ctx, &req); err != nil {
		return nil, err
	}
	t, err := s.resolve(ctx, walletID, req, true)
	if err != nil {
		return nil, err
	}
	if t.onchain != nil {
		return s.estimateOnchain(ctx, t)
	}
	if t.internal != nil || t.inside {
		zero := int64(0)
		return &FeeEstimate{Ledger: LedgerInternal, AmountMsat: t.amount, EstimatedFeeMsat: &zero, MaximumTotalMsat: t.amount}, nil
	}
	if !s.canPayExternal() {
		return nil, ErrNoExternalNode
	}
	maxFee := s.maxFee(t.amount)
	est := &FeeEstimate{Ledger: LedgerLightning, AmountMsat: t.amount, MaximumFeeMsat: maxFee, MaximumTotalMsat: t.amount + maxFee}
	if fe, ok := s.node.(FeeEstimator); ok && t.bolt11 != "" {
		// The estimate is advice: without a route now the payment may
		// still find one, so only the maximum is certain.
		if fee, err := fe.EstimateRouteFee(ctx, t.bolt11, t.amount); err == nil {
			est.EstimatedFeeMsat = &fee
		} else {
			s.log.DebugContext(ctx, "estimating route fee", "err", err)
		}
	}
	return est, nil
}

var errIdempotentRace = errors.New("idempotency key taken by a concurrent request")

func (s *Service) byIdempotencyKey(ctx context.Context, walletID, key, reqHash string) (*Payment, error) {
	p := new(Payment)
	err := s.db.W.NewSelect().Model(p).Where("wallet_id = ?", walletID).Where("idempotency_key = ?", key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading payment by idempotency key: %w", err)
	}
	if p.RequestHash == nil || *p.RequestHash != reqHash {
		return nil, ErrIdempotencyReuse
	}
	return p.present(), nil
}

func requestHash(req PayRequest) string {
	h := sha256.New()
	h.Write([]byte(req.Input))
	h.Write([]byte{0})
	if req.AmountMsat != nil {
		h.Write([]byte(strconv.FormatInt(*req.AmountMsat, 10)))
	}
	h.Write([]byte{0})
	if req.Comment != nil {
		h.Write([]byte(*req.Comment))
	}
	if req.FeeRateSatVB != nil { // after the rest: older hashes stay
		h.Write([]byte{0})
		h.Write([]byte(strconv.FormatInt(*req.FeeRateSatVB, 10)))
	}
	if req.Fiat != nil { // the amount as asked, not as priced: a retry finds it
		h.Write([]byte{1})
		h.Write([]byte(req.Fiat.Amount + " " + req.Fiat.Currency))
	}
	if len(req.TLVRecords) > 0 {
		h.Write([]byte{2})
		recordsHash(h, req.TLVRecords)
	}
	if req.KeysendPreimage != "" {
		h.Write([]byte{3})
		h.Write([]byte(strings.ToLower(req.KeysendPreimage)))
	}
	return hex.EncodeToString(h.Sum(nil))
}
