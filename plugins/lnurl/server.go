package lnurl

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hearthwallet/hearth/contract"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
)

// PayParams is a LUD-06 payRequest, as served and as read from outside
// servers.
type PayParams struct {
	Tag            string `json:"tag"`
	Callback       string `json:"callback"`
	MinSendable    int64  `json:"minSendable"`
	MaxSendable    int64  `json:"maxSendable"`
	Metadata       string `json:"metadata"`
	CommentAllowed int    `json:"commentAllowed"`
	// AllowsNostr and NostrPubkey (NIP-57) say that the callback takes
	// zap requests and which key signs their receipts: the server's.
	AllowsNostr bool   `json:"allowsNostr,omitempty"`
	NostrPubkey string `json:"nostrPubkey,omitempty"`
	// PayerData (LUD-18) names what the payer may say of themselves,
	// each field whether it must.
	PayerData map[string]PayerField `json:"payerData,omitempty"`
}

// PayerField is one field of LUD-18's payerData record.
type PayerField struct {
	Mandatory bool   `json:"mandatory"`
	K1        string `json:"k1,omitempty"`
}

// offeredPayerData is what the instance's addresses take of their payers
// (LUD-18), none of it mandatory.
var offeredPayerData = map[string]PayerField{"name": {}, "identifier": {}, "email": {}}

// maxPayerData bounds the payerdata a callback takes.
const maxPayerData = 1024

// Invoice is the callback's answer (LUD-06), with LUD-21's verify URL.
type Invoice struct {
	PR     string   `json:"pr"`
	Routes []string `json:"routes"`
	Verify string   `json:"verify,omitempty"`
}

// Verification is LUD-21's answer: whether the invoice was paid.
type Verification struct {
	Status   string  `json:"status"`
	Settled  bool    `json:"settled"`
	Preimage *string `json:"preimage"`
	PR       string  `json:"pr"`
}

// Error is the LUD error form, answered with a 4xx (or 5xx) status.
type Error struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

func errorBody(_ int, reason string) any { return Error{Status: "ERROR", Reason: reason} }

// The public routes' errors.
var (
	errUnknown        = fault.New(fault.NotFound, "not_found", "Unknown Lightning Address")
	errUnknownInvoice = fault.New(fault.NotFound, "not_found", "Not found")
	errBadAmount      = fault.New(fault.Invalid, "invalid_amount", "amount must be an integer number of millisatoshis")
	errCommentLength  = fault.New(fault.Unprocessable, "comment_too_long", "Comment too long")
	errNoZaps         = fault.New(fault.Unprocessable, "zaps_not_allowed", "This Lightning Address does not take zaps (allowsNostr is not set)")
)

// publicRoutes are the LNURL-pay routes any wallet calls: public, open to
// any origin, rate limited per client address, errors in the LUD form.
func (p *Plugin) publicRoutes() []host.BuiltinRoute {
	lim := &host.RateLimit{Name: "lnurl", PerMinute: p.cfg.RatePerMinute, Burst: p.cfg.RateBurst}
	return []host.BuiltinRoute{
		{Method: "GET", Path: "/.well-known/lnurlp/{username}", Access: host.Public, Status: http.StatusOK,
			Summary: "LUD-06/16 payRequest of a Lightning Address; 404 {status:ERROR} when unknown or inactive",
			Resp:    PayParams{}, AnyOrigin: true, ErrorBody: errorBody, Limit: lim, Handle: p.payRequest},
		{Method: "GET", Path: "/lnurlp/{username}/callback", Access: host.Public, Status: http.StatusOK,
			Summary: "LUD-06 callback: an invoice of amount msat committing to the metadata; LUD-12 comment",
			Query:   []string{"amount", "comment", "nostr", "lnurl"}, Resp: Invoice{}, AnyOrigin: true, ErrorBody: errorBody, Limit: lim,
			Handle: p.callback},
		{Method: "GET", Path: "/lnurlp/{username}/verify/{id}", Access: host.Public, Status: http.StatusOK,
			Summary: "LUD-21: whether the invoice was settled, with its preimage once it is",
			Resp:    Verification{}, AnyOrigin: true, ErrorBody: errorBody, Limit: lim, Handle: p.verify},
		p.keysendRoute(lim),
	}
}

// metadata is the LUD-06 metadata of an address: its exact text is what
// the invoices' description hash commits to.
func (p *Plugin) metadata(username string) string {
	addr := p.addressOf(username)
	b, _ := json.Marshal([][2]string{{"text/plain", "Payment to " + addr}, {"text/identifier", addr}})
	return string(b)
}

// address reads the active address of the {username} parameter.
func (p *Plugin) address(ctx context.Context, req *host.BuiltinRequest) (*Address, error) {
	name := strings.ToLower(req.Params["username"])
	if !usernameRE.MatchString(name) {
		return nil, errUnknown
	}
	a, err := p.byUsername(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return nil, errUnknown
	}
	if err != nil {
		return nil, err
	}
	if err := p.walletLives(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// walletLives answers ErrNotFound for an address whose wallet was deleted
// (its row stays, and its username taken, until it is deleted too).
func (p *Plugin) walletLives(ctx context.Context, a *Address) error {
	if p.exists == nil {
		return nil
	}
	err := p.exists(ctx, a.WalletID)
	if errors.Is(err, wallet.ErrNotFound) {
		return errUnknown
	}
	return err
}

func (p *Plugin) payRequest(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	a, err := p.address(ctx, req)
	if err != nil {
		return nil, err
	}
	pp := p.params(ctx, a.Username)
	if z := p.zaps(); z != nil && p.zapsTo(a) {
		pp.AllowsNostr, pp.NostrPubkey = true, z.NostrPubkey()
	}
	return pp, nil
}

// zapsTo reports whether a takes zaps: it allows Nostr and has a key.
func (p *Plugin) zapsTo(a *Address) bool { return a.AllowsNostr && a.NostrPubkey != nil }

// params is the payRequest of username.
func (p *Plugin) params(ctx context.Context, username string) *PayParams {
	lo, hi := p.limits(ctx)
	return &PayParams{Tag: "payRequest", Callback: p.cfg.PublicURL + "/lnurlp/" + username + "/callback",
		MinSendable: lo, MaxSendable: hi,
		Metadata: p.metadata(username), CommentAllowed: p.cfg.CommentAllowed, PayerData: offeredPayerData}
}

func (p *Plugin) callback(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	a, err := p.address(ctx, req)
	if err != nil {
		return nil, err
	}
	raw := req.Query.Get("amount")
	amount, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return nil, errBadAmount
	}
	var comment *string
	if c := req.Query.Get("comment"); c != "" {
		comment = &c
	}
	payerData, err := checkPayerData(req.Query.Get("payerdata"))
	if err != nil {
		return nil, err
	}
	var inv *ledger.Invoice
	switch raw := req.Query.Get("nostr"); {
	case raw == "":
		inv, err = p.receive(ctx, a, amount, comment, payerData)
	case p.zaps() == nil || !p.zapsTo(a):
		// A zap whose receipt would never come is refused, not paid.
		return nil, errNoZaps
	default:
		inv, err = p.receiveZap(ctx, a, amount, comment, zapForms(raw, req.RawQuery), req.Query.Get("lnurl"))
	}
	if err != nil {
		return nil, err
	}
	return &Invoice{PR: inv.LnInvoice.Bolt11, Routes: []string{},
		Verify: p.cfg.PublicURL + "/lnurlp/" + a.Username + "/verify/" + inv.ID}, nil
}

// receive checks amount and comment against a's payRequest and makes the
// invoice in a's wallet, committing to the metadata, with the comment as
// its description.
func (p *Plugin) receive(ctx context.Context, a *Address, amount int64, comment *string, payerData string) (*ledger.Invoice, error) {
	if err := p.checkPay(ctx, amount, comment); err != nil {
		return nil, err
	}
	if p.host == nil {
		return nil, errors.New("lnurl: the plugin is not bound to the host")
	}
	// LUD-18: the payer's data, as received, is committed to after the
	// metadata.
	hashed := p.metadata(a.Username) + payerData
	sum := sha256.Sum256([]byte(hashed))
	return p.host.Receive(ctx, a.WalletID, ledger.NewInvoice{AmountMsat: amount, Description: comment,
		DescriptionHash: sum[:], HashedDescription: hashed, Tag: &ledger.Tag{Value: a.ID}, PayerData: payerData})
}

// receiveZap is receive for a zap request (NIP-57): the Zapper validates
// it, the invoice commits to the request exactly as received (not to the
// metadata), and the Zapper keeps it with the invoice before the invoice
// is handed out.
func (p *Plugin) receiveZap(ctx context.Context, a *Address, amount int64, comment *string, forms []string, lnurl string) (*ledger.Invoice, error) {
	if err := p.checkPay(ctx, amount, comment); err != nil {
		return nil, err
	}
	if p.host == nil {
		return nil, errors.New("lnurl: the plugin is not bound to the host")
	}
	zaps := p.zaps()
	if zaps == nil {
		return nil, errNoZaps
	}
	z := contract.ZapRequest{AddressID: a.ID, WalletID: a.WalletID, Username: a.Username, RecipientPubkey: *a.NostrPubkey,
		AmountMsat: amount, Raw: forms[0], LNURL: lnurl}
	err := zaps.CheckZap(ctx, z)
	for _, form := range forms[1:] {
		if err == nil {
			break
		}
		alt := z
		alt.Raw = form
		if zaps.CheckZap(ctx, alt) == nil {
			z, err = alt, nil
		}
	}
	if err != nil {
		return nil, err
	}
	raw := z.Raw
	sum := sha256.Sum256([]byte(raw))
	inv, err := p.host.Receive(ctx, a.WalletID, ledger.NewInvoice{AmountMsat: amount, Description: comment,
		DescriptionHash: sum[:], HashedDescription: raw, Tag: &ledger.Tag{Value: a.ID}})
	if err != nil {
		return nil, err
	}
	if err := zaps.Zapped(ctx, z, inv); err != nil {
		return nil, fmt.Errorf("keeping the zap request of invoice %s: %w", inv.ID, err)
	}
	return inv, nil
}

// zapForms are the readings of the nostr parameter: as a form decodes it
// ('+' is a space), and, when it differs, with '+' kept: NIP-57's example
// encodes the request with encodeURI, which leaves '+' as it is. The
// request is signed, so only the reading the client signed validates.
func zapForms(decoded, rawQuery string) []string {
	forms := []string{decoded}
	for _, part := range strings.Split(rawQuery, "&") {
		v, ok := strings.CutPrefix(part, "nostr=")
		if !ok {
			continue
		}
		if alt, err := url.PathUnescape(v); err == nil && alt != decoded {
			forms = append(forms, alt)
		}
		break
	}
	return forms
}

// NostrName is the NIP-05 directory (contract.Names): the key of the
// active address name that allows Nostr.
func (p *Plugin) NostrName(ctx context.Context, name string) (string, error) {
	name = strings.ToLower(name)
	if !usernameRE.MatchString(name) {
		return "", contract.ErrNoNostrName
	}
	a, err := p.byUsername(ctx, name)
	if err == nil {
		err = p.walletLives(ctx, a)
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, errUnknown) {
		return "", contract.ErrNoNostrName
	}
	if err != nil {
		return "", err
	}
	if !p.zapsTo(a) {
		return "", contract.ErrNoNostrName
	}
	return *a.NostrPubkey, nil
}

// checkPay checks an amount and a comment against the payRequest.
func (p *Plugin) checkPay(ctx context.Context, amount int64, comment *string) error {
	if lo, hi := p.limits(ctx); amount < lo || amount > hi {
		return ledger.ErrInvalidAmount.Reasonf("Amount must be between %d and %d msat", lo, hi)
	}
	if comment != nil {
		if !utf8.ValidString(*comment) || strings.ContainsRune(*comment, 0) {
			return fault.Unprocessablef("invalid_comment", "The comment must be text")
		}
		if n := utf8.RuneCountInString(*comment); n > p.cfg.CommentAllowed {
			return errCommentLength.Reasonf("Comment too long: %d characters, at most %d", n, p.cfg.CommentAllowed)
		}
	}
	return nil
}

func (p *Plugin) verify(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	name := strings.ToLower(req.Params["username"])
	raw := req.Params["id"]
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 || !usernameRE.MatchString(name) {
		return nil, errUnknownInvoice
	}
	a, err := p.one(ctx, "username = ?", name)
	if errors.Is(err, ErrNotFound) {
		return nil, errUnknownInvoice
	}
	if err != nil {
		return nil, err
	}
	if p.host == nil {
		return nil, errors.New("lnurl: the plugin is not bound to the host")
	}
	inv, err := p.host.ReceivedInvoice(ctx, a.WalletID, id.String())
	if errors.Is(err, ledger.ErrInvoiceNotFound) {
		return nil, errUnknownInvoice
	}
	if err != nil {
		return nil, err
	}
	if inv.Tag == nil || inv.Tag.Plugin != Name || inv.Tag.Value != a.ID {
		return nil, errUnknownInvoice
	}
	v := &Verification{Status: "OK", Settled: inv.Status == ledger.StatusSettled, PR: inv.LnInvoice.Bolt11}
	if v.Settled {
		v.Preimage = inv.LnInvoice.PaymentPreimage
	}
	return v, nil
}

// errBadPayerData is a callback's payerdata that is no JSON object of
// what the payRequest offered, within maxPayerData.
var errBadPayerData = fault.New(fault.Invalid, "invalid_payerdata", "payerdata must be a JSON object")

// checkPayerData checks a callback's payerdata (LUD-18): "" for none, or a
// JSON object of at most maxPayerData bytes whose fields are among those
// offered, each a string of at most 256 bytes; it is kept as received.
func checkPayerData(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	if len(raw) > maxPayerData {
		return "", errBadPayerData.Reasonf("payerdata must be at most %d bytes", maxPayerData)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &fields); err != nil || fields == nil {
		return "", errBadPayerData
	}
	for k, v := range fields {
		var text string
		if _, ok := offeredPayerData[k]; !ok {
			return "", errBadPayerData.Reasonf("payerdata %q is not asked for: only name, identifier and email", truncate(k, 40))
		}
		if err := json.Unmarshal(v, &text); err != nil || len(text) > 256 {
			return "", errBadPayerData.Reasonf("payerdata %s must be a string of at most 256 bytes", k)
		}
	}
	return raw, nil
}
