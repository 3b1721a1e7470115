package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

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
}

// FeeEstimate answers POST /payments/fee-estimate.
type FeeEstimate struct {
	Ledger           string `json:"ledger"`
	AmountMsat       int64  `json:"amount_msat"`
	EstimatedFeeMsat *int64 `json:"estimated_fee_msat,omitempty"`
	MaximumFeeMsat   int64  `json:"maximum_fee_msat"`
	MaximumTotalMsat int64  `json:"maximum_total_msat"`
}

// target is a resolved payment: what to pay, how much, and whether the
// invoice is this instance's own.
type target struct {
	bolt11   string
	decoded  *DecodedInvoice
	amount   int64
	internal *Invoice
	// recalled says internal came from the recent invoices (recent.go),
	// not from the database.
	recalled bool
	// inside is an estimate's payment inside the instance, with no
	// invoice yet (a Resolver's answer).
	inside bool
	// lnAddress and successAction are kept on the record; finish makes
	// the success action of a settled payment (Resolved.Finish).
	lnAddress     *string
	successAction *string
	finish        func(preimage string) json.RawMessage
	// onchain is an on-chain destination (spend.go); btcAddress the
	// deposit address an internal payment paid.
	onchain    *OnchainTarget
	btcAddress *string
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
	err = errNotOwn
	// A budget is charged in the payment's transaction, which the batches
	// of hearth_pay_own do not run: a budgeted payment goes the way of
	// SQLite's (payInternal takes the batches' wallet locks).
	if s.db.Dialect == store.Postgres && req.Budget == nil {
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
	if fe, ok := s.node.(FeeEstimator); ok {
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

// resolve finds what req pays: a BOLT11 invoice, or what a Resolver
// makes of any other input.
func (s *Service) resolve(ctx context.Context, walletID string, req PayRequest, estimate bool) (*target, error) {
	in, err := ParseInput(req.Input)
	if err != nil {
		return s.resolveOther(ctx, walletID, req, estimate, err)
	}
	// An estimate says what paying would do now: from the database.
	return s.resolveBolt11(ctx, walletID, in, req, !estimate)
}

// resolveBolt11 finds what paying the BOLT11 invoice in means; with
// recall, an invoice this process issued lately is taken from what it
// remembers (recent.go) instead of the database.
func (s *Service) resolveBolt11(ctx context.Context, walletID string, in Input, req PayRequest, recall bool) (*target, error) {
	// An invoice this instance issued is found by its exact text: having
	// stored it when the node signed it is proof enough, so the signature
	// is not checked again (the costliest part of decoding). One this
	// process issued lately is not even read (recent.go).
	var inv *Invoice
	if recall {
		inv = s.recent.recall(in.Bolt11, s.now())
	}
	recalled := inv != nil
	var err error
	if !recalled {
		if inv, err = s.invoiceByBolt11(ctx, in.Bolt11); err != nil {
			return nil, err
		}
	}
	var dec *DecodedInvoice
	if inv != nil {
		dec = inv.decoded()
	} else {
		if dec, err = s.node.Decode(in.Bolt11); err != nil {
			return nil, BadInvoice(err)
		}
		// The same invoice written differently (another letter case
		// before ParseInput, say) is still found by its payment hash.
		inv, err = s.invoiceWhere(ctx, "payment_hash = ?", dec.PaymentHash)
		if err != nil {
			return nil, err
		}
		if inv != nil && inv.PayeePubkey != dec.PayeePubkey {
			inv = nil // same hash, another node: not ours
		}
	}
	t := &target{bolt11: in.Bolt11, decoded: dec, amount: dec.AmountMsat}
	switch {
	case dec.AmountMsat > 0 && req.AmountMsat != nil && *req.AmountMsat != dec.AmountMsat:
		return nil, ErrAmountMismatch.Reasonf("amount_msat %d differs from the invoice amount %d", *req.AmountMsat, dec.AmountMsat)
	case dec.AmountMsat == 0 && req.AmountMsat == nil:
		return nil, ErrInvalidAmount.Reasonf("amount_msat is required for an invoice without an amount")
	case dec.AmountMsat == 0:
		t.amount = *req.AmountMsat
	}
	if t.amount <= 0 {
		return nil, ErrInvalidAmount.Reasonf("amount_msat must be positive")
	}
	if !s.now().Before(dec.ExpiresAt) {
		return nil, ErrInvoiceExpired
	}
	if inv == nil {
		return t, nil
	}
	switch {
	case inv.WalletID == walletID:
		return nil, ErrSelfPayment
	case inv.Status == StatusSettled:
		return nil, ErrInvoicePaid
	case !s.now().Before(inv.ExpiresAt):
		return nil, ErrInvoiceExpired
	case inv.AmountMsat != nil && t.amount != *inv.AmountMsat:
		return nil, ErrAmountMismatch.Reasonf("amount_msat %d differs from the invoice amount %d", t.amount, *inv.AmountMsat)
	}
	t.internal, t.recalled = inv, recalled
	return t, nil
}

// invoiceOfBolt11 reads the invoice whose text is its one argument.
var invoiceOfBolt11 = store.NewHot("SELECT * FROM invoices WHERE bolt11 = ?")

// invoiceByBolt11 returns the invoice whose text is bolt11, or nil when
// there is none.
func (s *Service) invoiceByBolt11(ctx context.Context, bolt11 string) (*Invoice, error) {
	inv := new(Invoice)
	return foundInvoice(inv, s.db.QueryRow(ctx, s.db.R, invoiceOfBolt11, []any{inv}, bolt11))
}

// invoiceWhere returns the invoice matching where, or nil when there is none.
func (s *Service) invoiceWhere(ctx context.Context, where string, arg any) (*Invoice, error) {
	inv := new(Invoice)
	return foundInvoice(inv, s.db.R.NewSelect().Model(inv).Where(where, arg).Limit(1).Scan(ctx))
}

// foundInvoice is inv, read with the answer err: nil if no row was found.
func foundInvoice(inv *Invoice, err error) (*Invoice, error) {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("looking up invoice: %w", err)
	}
	return inv, nil
}

// record reads the invoice or payment id (of walletID, unless "") into
// model, or returns notFound.
func (s *Service) record(ctx context.Context, model any, walletID, id string, notFound error) error {
	q := s.db.R.NewSelect().Model(model).Where("id = ?", id)
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	err := q.Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return notFound
	case err != nil:
		return fmt.Errorf("reading %s: %w", q.GetTableName(), err)
	}
	return nil
}

var errIdempotentRace = errors.New("idempotency key taken by a concurrent request")

// insertPaymentSQL records a payment: every column of Payment, in the
// order insertPayment binds them. Hot: every payment on SQLite runs it in
// the one writer, where parsing it again each time was 6 % of the CPU.
var insertPaymentSQL = store.NewHot(`INSERT INTO payments (id, wallet_id, amount_msat, fee_msat,
	reserved_msat, status, ledger, error, description, payment_time, payment_hash, payment_preimage,
	bolt11, idempotency_key, request_hash, created_at, updated_at, ln_address, success_action, btc_address,
	api_key_id, budget_period, budget_msat, event_id)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
	CASE WHEN ? = 'Pending' THEN NULL ELSE ` + store.EventToken + ` END)`)

// insertPayment records p inside tx; a unique index's refusal is the
// ledger's error for it.
func (s *Service) insertPayment(ctx context.Context, tx bun.Tx, p *Payment) error {
	_, err := s.db.Exec(ctx, tx, insertPaymentSQL, p.ID, p.WalletID, p.AmountMsat, p.FeeMsat, p.ReservedMsat,
		p.Status, p.Ledger, p.Error, p.Description, p.PaymentTime, p.PaymentHash, p.PaymentPreimage,
		p.Bolt11, p.IdempotencyKey, p.RequestHash, p.CreatedAt, p.UpdatedAt, p.LnAddress, p.SuccessAction, p.BtcAddress,
		p.APIKeyID, p.BudgetPeriod, p.BudgetMsat, p.Status)
	if err != nil {
		if store.IsUniqueViolation(err) {
			return uniqueRefusal(p.IdempotencyKey != nil)
		}
		return fmt.Errorf("recording payment: %w", err)
	}
	return nil
}

// uniqueRefusal is the error for a payment that a unique index refused.
// PostgreSQL has aborted the transaction, so which index was hit is found
// out after the rollback (see Pay).
func uniqueRefusal(idempotent bool) error {
	if idempotent {
		return errIdempotentRace
	}
	return ErrPaymentInFlight
}

func (s *Service) canPayExternal() bool {
	ep, ok := s.node.(ExternalPayer)
	return !ok || ep.ExternalPayments()
}

func (s *Service) maxFee(amount int64) int64 {
	return max(amount*s.cfg.FeeLimitPercent/100, s.cfg.MinFeeLimitMsat)
}

// payExternal reserves amount + max fee, asks the node to pay outside the
// transaction, and settles at the real fee or fails and releases. An
// ambiguous answer leaves the payment Pending for the reconciler.
func (s *Service) payExternal(ctx context.Context, walletID string, t *target, req PayRequest, reqHash string) (*Payment, error) {
	if !s.canPayExternal() {
		return nil, ErrNoExternalNode
	}
	now := s.timestamp()
	maxFee := s.maxFee(t.amount)
	reserve := t.amount + maxFee
	p := &Payment{
		ID:            newID(),
		WalletID:      walletID,
		AmountMsat:    t.amount,
		Status:        StatusPending,
		Ledger:        LedgerLightning,
		CreatedAt:     now,
		ReservedMsat:  reserve,
		PaymentHash:   &t.decoded.PaymentHash,
		Bolt11:        &t.bolt11,
		RequestHash:   &reqHash,
		LnAddress:     t.lnAddress,
		SuccessAction: t.successAction,
	}
	if t.decoded.Description != "" {
		p.Description = &t.decoded.Description
	}
	if req.IdempotencyKey != "" {
		p.IdempotencyKey = &req.IdempotencyKey
	}
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.charge(ctx, tx, p, req, reserve, now); err != nil {
			return err
		}
		ok, err := reserveFunds(ctx, tx, walletID, reserve, now)
		if err != nil {
			return fmt.Errorf("reserving funds: %w", err)
		}
		if !ok {
			return ErrInsufficientFunds.Reasonf("Insufficient funds. Required: %d msat (amount + maximum fee)", reserve)
		}
		return s.insertPayment(ctx, tx, p)
	})
	if err != nil {
		return nil, err
	}
	// The node call must finish even if the client goes away: its outcome
	// decides where the reserved money goes.
	payCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.PayTimeout+5*time.Second)
	defer cancel()
	res, err := s.node.Pay(payCtx, NodePayment{Bolt11: t.bolt11, AmountMsat: t.amount, MaxFeeMsat: maxFee, Timeout: s.cfg.PayTimeout})
	if err := s.applyOutcome(payCtx, p.ID, res, err); err != nil {
		return nil, err
	}
	return s.Payment(ctx, walletID, p.ID)
}

// Payment returns payment id of walletID ("" for any wallet).
func (s *Service) Payment(ctx context.Context, walletID, id string) (*Payment, error) {
	p := new(Payment)
	if err := s.record(ctx, p, walletID, id, ErrPaymentNotFound); err != nil {
		return nil, err
	}
	return p.present(), nil
}

// Payments lists payments.
func (s *Service) Payments(ctx context.Context, f Filter) ([]Payment, error) {
	f, err := s.keyWallet(ctx, f)
	if err != nil {
		return nil, err
	}
	out := []Payment{}
	q, err := f.payments(s.db.R.NewSelect().Model(&out))
	if err != nil {
		return nil, err
	}
	if err := f.Page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing payments: %w", err)
	}
	for i := range out {
		out[i].present()
	}
	return out, nil
}

// keyWallet narrows f, a listing across wallets filtered by an API key
// that is not the admin's, to that key's user's wallet: such a key pays
// from its user's one wallet alone (the caller's, or a delegation's, whose
// user is its wallet's), so the list reads that wallet's index, where
// SQLite, which has no index by key, would read every payment to find a
// rare key's. The admin's keys pay from any wallet: no narrowing.
func (s *Service) keyWallet(ctx context.Context, f Filter) (Filter, error) {
	if f.APIKeyID == "" || f.WalletID != "" {
		return f, nil
	}
	var ids []string
	err := s.db.R.NewRaw(`SELECT w.id FROM api_keys k JOIN wallets w ON w.user_id = k.user_id
		WHERE k.id = ? AND NOT k.is_admin`, f.APIKeyID).Scan(ctx, &ids)
	if err != nil {
		return f, fmt.Errorf("reading the wallet of API key %s: %w", f.APIKeyID, err)
	}
	if len(ids) == 1 {
		f.WalletID = ids[0]
	}
	return f, nil
}

// payments narrows a listing of payments to f, but for its page.
func (f Filter) payments(q *bun.SelectQuery) (*bun.SelectQuery, error) {
	if f.WalletID != "" {
		q = q.Where("wallet_id = ?", f.WalletID)
	}
	switch f.Status {
	case "", StatusPending, StatusSettled, StatusFailed:
		if f.Status != "" {
			q = q.Where("status = ?", f.Status)
		}
	default:
		return nil, fault.Invalidf("status must be Pending, Settled or Failed")
	}
	if f.Ledger != "" {
		q = q.Where("ledger = ?", f.Ledger)
	}
	if f.APIKeyID != "" {
		q = q.Where("api_key_id = ?", f.APIKeyID)
	}
	return f.narrow(q), nil
}

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
	return hex.EncodeToString(h.Sum(nil))
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Reconcile resolves Pending payments and invoices against the node, so a
// crash, restart or lost stream loses nothing.
func (s *Service) Reconcile(ctx context.Context) error {
	var pending []Payment
	if err := s.db.R.NewSelect().Model(&pending).
		Where("status = ?", StatusPending).Where("ledger = ?", LedgerLightning).Scan(ctx); err != nil {
		return fmt.Errorf("listing pending payments: %w", err)
	}
	var errs []error
	for _, p := range pending {
		if p.PaymentHash == nil {
			continue
		}
		res, err := s.node.LookupPayment(ctx, *p.PaymentHash)
		if err != nil {
			errs = append(errs, fmt.Errorf("looking up payment %s: %w", p.ID, err))
			continue
		}
		switch res.State {
		case PaymentSucceeded:
			err = s.SettlePayment(ctx, p.ID, res.FeeMsat, res.Preimage)
		case PaymentFailedState:
			err = s.FailPayment(ctx, p.ID, res.Reason)
		case PaymentUnknown:
			// Recorded but never handed to the node (a crash in between):
			// nothing was sent. Young ones may still be in a Pay call.
			if s.now().Sub(p.CreatedAt) > s.cfg.PayTimeout+time.Minute {
				err = s.FailPayment(ctx, p.ID, "never reached the node")
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	var invoices []Invoice
	if err := s.db.R.NewSelect().Model(&invoices).
		Where("status = ?", StatusPending).Where("expires_at > ?", s.timestamp().Add(-24*time.Hour)).
		Where("ledger <> ?", LedgerOnchain).Scan(ctx); err != nil {
		return errors.Join(append(errs, fmt.Errorf("listing pending invoices: %w", err))...)
	}
	for _, inv := range invoices {
		st, err := s.node.LookupInvoice(ctx, inv.PaymentHash)
		if errors.Is(err, ErrUnknownInvoice) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("looking up invoice %s: %w", inv.ID, err))
			continue
		}
		if st.Settled {
			if _, err := s.SettleInvoice(ctx, *st); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
