package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// Ledger is what the HTTP layer needs of the ledger.
type Ledger interface {
	CreateInvoice(ctx context.Context, walletID string, req ledger.NewInvoice) (*ledger.Invoice, error)
	CreateHoldInvoice(ctx context.Context, walletID string, req ledger.NewHoldInvoice) (*ledger.Invoice, error)
	SettleHold(ctx context.Context, walletID, id, preimage string) (*ledger.Invoice, error)
	CancelHold(ctx context.Context, walletID, id string) (*ledger.Invoice, error)
	Invoice(ctx context.Context, walletID, id string) (*ledger.Invoice, error)
	Invoices(ctx context.Context, f ledger.Filter) ([]ledger.Invoice, error)
	Pay(ctx context.Context, walletID string, req ledger.PayRequest) (*ledger.Payment, bool, error)
	EstimateFee(ctx context.Context, walletID string, req ledger.PayRequest) (*ledger.FeeEstimate, error)
	Payment(ctx context.Context, walletID, id string) (*ledger.Payment, error)
	Payments(ctx context.Context, f ledger.Filter) ([]ledger.Payment, error)
	Rate(ctx context.Context, currency string) (ledger.Rate, error)
	KeysendAddressOf(ctx context.Context, walletID string) (*ledger.KeysendAddress, error)
	Node() ledger.Node
}

// OutsidePayer is a node that can pay this instance's invoices as if from
// outside (the embedded node, for the admin).
type OutsidePayer interface {
	PayAsOutsider(ctx context.Context, bolt11 string) error
}

type invoiceRequest struct {
	AmountMsat *int64 `json:"amount_msat"`
	// Amount and Currency, instead of AmountMsat: an amount in a currency
	// ("12.50", "EUR"), converted at the rate of now.
	Amount      *string `json:"amount,omitempty"`
	Currency    *string `json:"currency,omitempty"`
	Description *string `json:"description,omitempty"`
	// Expiry in seconds.
	Expiry *int64 `json:"expiry,omitempty"`
}

type adminInvoiceRequest struct {
	WalletID *string `json:"wallet_id"`
	invoiceRequest
}

type paymentRequest struct {
	Input      *string `json:"input"`
	AmountMsat *int64  `json:"amount_msat,omitempty"`
	// Amount in Currency, instead of AmountMsat (ledger.PayRequest.Fiat).
	Amount   *string `json:"amount,omitempty"`
	Currency *string `json:"currency,omitempty"`
	Comment  *string `json:"comment,omitempty"`
	// TLVRecords are a keysend's custom records (input a node's public
	// key): {"7629169": "<hex>"}.
	TLVRecords map[string]string `json:"tlv_records,omitempty"`
	// FeeRateSatVB is an on-chain spend's fee rate in sat/vB.
	FeeRateSatVB *int64 `json:"fee_rate_sat_vb,omitempty"`
}

type adminPaymentRequest struct {
	WalletID *string `json:"wallet_id"`
	paymentRequest
}

type nodePayRequest struct {
	Bolt11 *string `json:"bolt11"`
}

const maxIdempotencyKey = 255

// askedIn reads an amount given in a currency: amount and currency both or
// neither, and never beside amount_msat; nil for none.
func askedIn(amountMsat *int64, amount, currency *string) (*ledger.FiatAmount, error) {
	switch {
	case amount == nil && currency == nil:
		return nil, nil
	case amountMsat != nil:
		return nil, fault.Invalidf("give amount_msat, or amount and currency, not both")
	case amount == nil:
		return nil, required("amount")
	case currency == nil:
		return nil, required("currency")
	}
	return &ledger.FiatAmount{Amount: *amount, Currency: *currency}, nil
}

func (r *invoiceRequest) toNew() (ledger.NewInvoice, error) {
	ni := ledger.NewInvoice{Description: r.Description, Expiry: r.Expiry}
	f, err := askedIn(r.AmountMsat, r.Amount, r.Currency)
	switch {
	case err != nil:
		return ni, err
	case f != nil:
		ni.Fiat = f
	case r.AmountMsat == nil:
		return ni, required("amount_msat")
	default:
		ni.AmountMsat = *r.AmountMsat
	}
	return ni, nil
}

func (r *paymentRequest) toPay(req bunrouter.Request) (ledger.PayRequest, error) {
	if r.Input == nil {
		return ledger.PayRequest{}, required("input")
	}
	key := strings.TrimSpace(req.Header.Get("Idempotency-Key"))
	if len(key) > maxIdempotencyKey {
		return ledger.PayRequest{}, fault.Invalidf("Idempotency-Key must be at most %d characters", maxIdempotencyKey)
	}
	if badPathText(key) {
		return ledger.PayRequest{}, fault.Invalidf("Idempotency-Key must be text without control characters")
	}
	f, err := askedIn(r.AmountMsat, r.Amount, r.Currency)
	if err != nil {
		return ledger.PayRequest{}, err
	}
	records, err := tlvRecords(r.TLVRecords)
	if err != nil {
		return ledger.PayRequest{}, err
	}
	return ledger.PayRequest{Input: *r.Input, AmountMsat: r.AmountMsat, Comment: r.Comment, FeeRateSatVB: r.FeeRateSatVB,
		IdempotencyKey: key, Fiat: f, TLVRecords: records}, nil
}

// payWith has pr made by caller's credential: its API key, kept on the
// payment, and that key's budget, which the payment counts against. The
// admin's token and keys without a budget are unbounded.
func payWith(pr *ledger.PayRequest, caller *auth.Principal) {
	if caller == nil {
		return
	}
	pr.KeyID = caller.KeyID
	if caller.Budgeted && caller.KeyID != "" {
		pr.Budget = &ledger.Budget{KeyID: caller.KeyID, Renewal: caller.Budget}
	}
}

// namedWallet is the wallet an admin's request names (its wallet_id),
// which must exist.
func (s *Server) namedWallet(req bunrouter.Request, v *string) (string, error) {
	walletID, err := walletParam(v)
	if err != nil {
		return "", err
	}
	if _, err := s.wallets.Get(req.Context(), walletID); err != nil {
		return "", err
	}
	return walletID, nil
}

// walletParam reads a wallet_id from a body or query: it must be a UUID.
func walletParam(v *string) (string, error) {
	if v == nil {
		return "", required("wallet_id")
	}
	id, err := uuid.Parse(*v)
	if err != nil {
		return "", fault.Invalidf("Invalid wallet_id: expected a UUID")
	}
	return id.String(), nil
}

func (s *Server) createMyInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	var body invoiceRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	ni, err := body.toNew()
	if err != nil {
		return err
	}
	return s.createInvoiceIn(w, req, callerWallet(req.Context()), ni)
}

func (s *Server) createInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	var body adminInvoiceRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	walletID, err := walletParam(body.WalletID)
	if err != nil {
		return err
	}
	ni, err := body.toNew()
	if err != nil {
		return err
	}
	if _, err := s.wallets.Get(req.Context(), walletID); err != nil {
		return err
	}
	return s.createInvoiceIn(w, req, walletID, ni)
}

// createInvoiceIn issues ni into walletID and answers it: the end of
// POST /v1/me/invoices and of POST /v1/invoices.
func (s *Server) createInvoiceIn(w http.ResponseWriter, req bunrouter.Request, walletID string, ni ledger.NewInvoice) error {
	inv, err := s.ledger.CreateInvoice(req.Context(), walletID, ni)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, inv)
	return nil
}

// scopeWallet is the caller's wallet on /me routes, and on admin routes the
// wallet_id query filter ("" for all).
func scopeWallet(req bunrouter.Request, me bool) (string, error) {
	if me {
		return callerWallet(req.Context()), nil
	}
	if v := req.URL.Query().Get("wallet_id"); v != "" {
		return walletParam(&v)
	}
	return "", nil
}

func (s *Server) listMyInvoices(w http.ResponseWriter, req bunrouter.Request) error {
	return s.listInvoicesOf(w, req, true)
}

func (s *Server) listInvoices(w http.ResponseWriter, req bunrouter.Request) error {
	return s.listInvoicesOf(w, req, false)
}

func (s *Server) listInvoicesOf(w http.ResponseWriter, req bunrouter.Request, me bool) error {
	f, err := ledgerListFilter(req, me)
	if err != nil {
		return err
	}
	invs, err := s.ledger.Invoices(req.Context(), f)
	if err != nil {
		return err
	}
	s.value(req.Context(), pointers(invs), nil)
	writePage(w, req, f.Page, invs, invoiceAt)
	return nil
}

// ledgerListFilter reads the wallet scope, status, ledger and page of an
// invoice or payment list.
func ledgerListFilter(req bunrouter.Request, me bool) (ledger.Filter, error) {
	page, err := pageParams(req)
	if err != nil {
		return ledger.Filter{}, err
	}
	walletID, err := scopeWallet(req, me)
	if err != nil {
		return ledger.Filter{}, err
	}
	q := req.URL.Query()
	ledgerName, err := ledgerParam(q.Get("ledger"))
	if err != nil {
		return ledger.Filter{}, err
	}
	return ledger.Filter{WalletID: walletID, Status: q.Get("status"), Ledger: ledgerName, Page: page}, nil
}

// getOwned answers GET …/{id}: owner is the caller's wallet or user on /me
// routes (another's record is 404) and "" on admin routes.
func getOwned[T any](w http.ResponseWriter, req bunrouter.Request, owner string,
	get func(ctx context.Context, owner, id string) (T, error)) error {
	id, err := pathID(req)
	if err != nil {
		return err
	}
	v, err := get(req.Context(), owner, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

func ledgerParam(v string) (string, error) {
	switch v {
	case "", ledger.LedgerLightning, ledger.LedgerInternal, ledger.LedgerOnchain:
		return v, nil
	}
	return "", fault.Invalidf("Invalid ledger: expected Lightning, Internal or Onchain")
}

func (s *Server) getMyInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	return getOwned(w, req, callerWallet(req.Context()), s.invoiceValued)
}

func (s *Server) getInvoice(w http.ResponseWriter, req bunrouter.Request) error {
	return getOwned(w, req, "", s.invoiceValued)
}

func (s *Server) payMine(w http.ResponseWriter, req bunrouter.Request) error {
	var body paymentRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	return s.pay(w, req, callerWallet(req.Context()), &body)
}

func (s *Server) payAny(w http.ResponseWriter, req bunrouter.Request) error {
	var body adminPaymentRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	walletID, err := s.namedWallet(req, body.WalletID)
	if err != nil {
		return err
	}
	return s.pay(w, req, walletID, &body.paymentRequest)
}

func (s *Server) pay(w http.ResponseWriter, req bunrouter.Request, walletID string, body *paymentRequest) error {
	pr, err := body.toPay(req)
	if err != nil {
		return err
	}
	payWith(&pr, auth.FromContext(req.Context()))
	p, created, err := s.ledger.Pay(req.Context(), walletID, pr)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, p)
	return nil
}

func (s *Server) estimateMyFee(w http.ResponseWriter, req bunrouter.Request) error {
	var body paymentRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	pr, err := body.toPay(req)
	if err != nil {
		return err
	}
	est, err := s.ledger.EstimateFee(req.Context(), callerWallet(req.Context()), pr)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, est)
	return nil
}

func (s *Server) listMyPayments(w http.ResponseWriter, req bunrouter.Request) error {
	return s.listPaymentsOf(w, req, true)
}

func (s *Server) listPayments(w http.ResponseWriter, req bunrouter.Request) error {
	return s.listPaymentsOf(w, req, false)
}

func (s *Server) listPaymentsOf(w http.ResponseWriter, req bunrouter.Request, me bool) error {
	f, err := ledgerListFilter(req, me)
	if err != nil {
		return err
	}
	if v := req.URL.Query().Get("api_key_id"); v != "" {
		id, err := uuid.Parse(v)
		if err != nil {
			return fault.Invalidf("Invalid api_key_id: expected a UUID")
		}
		f.APIKeyID = id.String()
	}
	ps, err := s.ledger.Payments(req.Context(), f)
	if err != nil {
		return err
	}
	s.value(req.Context(), nil, pointers(ps))
	writePage(w, req, f.Page, ps, paymentAt)
	return nil
}

func invoiceAt(i *ledger.Invoice) store.Cursor { return store.Cursor{CreatedAt: i.CreatedAt, ID: i.ID} }

func paymentAt(p *ledger.Payment) store.Cursor { return store.Cursor{CreatedAt: p.CreatedAt, ID: p.ID} }

func (s *Server) getMyPayment(w http.ResponseWriter, req bunrouter.Request) error {
	return getOwned(w, req, callerWallet(req.Context()), s.paymentValued)
}

func (s *Server) getPayment(w http.ResponseWriter, req bunrouter.Request) error {
	return getOwned(w, req, "", s.paymentValued)
}

func (s *Server) nodeInfo(w http.ResponseWriter, req bunrouter.Request) error {
	info, err := s.ledger.Node().Info(req.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

var errNotOutsidePayer = fault.New(fault.Unprocessable, "not_supported",
	"Paying as an outside payer is only available with the embedded node")

func (s *Server) nodePay(w http.ResponseWriter, req bunrouter.Request) error {
	payer, ok := s.ledger.Node().(OutsidePayer)
	if !ok {
		return errNotOutsidePayer
	}
	var body nodePayRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	if body.Bolt11 == nil {
		return required("bolt11")
	}
	if err := payer.PayAsOutsider(req.Context(), *body.Bolt11); err != nil {
		return err
	}
	return noContent(w)
}
