package lnurl

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hearthwallet/hearth/contract"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
)

// Decoder parses BOLT11 invoices (the node does).
type Decoder interface {
	Decode(bolt11 string) (*ledger.DecodedInvoice, error)
}

// Client pays LNURL-pay servers (LUD-06, -09, -12, -16): it fetches the
// payRequest and the invoice through the host's outbound guard (https;
// http and private hosts only when allowed) and checks every answer.
type Client struct {
	out     *host.Outbound
	dec     Decoder
	private bool
}

// NewClient returns the client. allowPrivate lets it use http:// and
// reach private hosts (plugins.allow_private_hosts; the guard must agree).
func NewClient(out *host.Outbound, dec Decoder, allowPrivate bool) *Client {
	return &Client{out: out, dec: dec, private: allowPrivate}
}

// ErrRefused is an LNURL server's answer that cannot be paid: nothing was
// paid.
var ErrRefused = fault.New(fault.Unprocessable, "lnurl_refused", "The LNURL server's answer cannot be paid")

func refused(format string, args ...any) error { return ErrRefused.Reasonf(format, args...) }

// errWithdrawLink is an LNURL-withdraw link given to pay: it gives money,
// and is claimed elsewhere.
var errWithdrawLink = ErrRefused.Reasonf("This is an LNURL-withdraw link, which gives money: claim it with POST /v1/me/lnurl-withdraw")

// Offer is an invoice an LNURL server gave for a payment, checked.
type Offer struct {
	Bolt11 string
	// SuccessAction is the LUD-09 action, validated and re-encoded; nil
	// when the server gave none.
	SuccessAction *SuccessAction
}

// SuccessAction is a LUD-09 success action, as kept on the payment.
type SuccessAction struct {
	Tag         string `json:"tag"`
	Message     string `json:"message,omitempty"`
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
	Ciphertext  string `json:"ciphertext,omitempty"`
	IV          string `json:"iv,omitempty"`
	// Plaintext is an aes action decrypted with the preimage, once paid.
	Plaintext string `json:"plaintext,omitempty"`
}

// Params fetches and checks the payRequest at rawURL.
func (c *Client) Params(ctx context.Context, rawURL string) (*PayParams, error) {
	resp, err := c.out.Do(ctx, nil, host.OutboundRequest{Method: "GET", URL: rawURL, PlainPrivateOnly: true})
	if err != nil {
		return nil, unreachable(err)
	}
	return parsePayParams(resp.Status, resp.Body)
}

// Invoice calls the payRequest's callback for amountMsat with comment and
// payerData (LUD-18, "" for none), and checks the invoice: its amount, and
// its description hash against the metadata (followed by payerData).
func (c *Client) Invoice(ctx context.Context, params *PayParams, amountMsat int64, comment, payerData string) (*Offer, error) {
	if err := checkOffer(params, amountMsat, comment); err != nil {
		return nil, err
	}
	cb, err := url.Parse(params.Callback)
	if err != nil || !c.schemeOK(cb) || cb.Host == "" || cb.User != nil {
		return nil, refused("The LNURL server's callback is not an https URL")
	}
	q := cb.Query()
	q.Set("amount", strconv.FormatInt(amountMsat, 10))
	if comment != "" {
		q.Set("comment", comment)
	}
	if payerData != "" {
		q.Set("payerdata", payerData)
	}
	cb.RawQuery = q.Encode()
	resp, err := c.out.Do(ctx, nil, host.OutboundRequest{Method: "GET", URL: cb.String(), PlainPrivateOnly: true})
	if err != nil {
		return nil, unreachable(err)
	}
	ans, err := parsePayAnswer(resp.Status, resp.Body)
	if err != nil {
		return nil, err
	}
	inv, err := c.dec.Decode(ans.PR)
	if err != nil {
		return nil, refused("The LNURL server's invoice does not decode: %v", err)
	}
	if inv.AmountMsat != amountMsat {
		return nil, refused("The LNURL server's invoice is for %d msat, not the %d msat asked", inv.AmountMsat, amountMsat)
	}
	sum := sha256.Sum256([]byte(params.Metadata + payerData))
	if !strings.EqualFold(inv.DescriptionHash, hex.EncodeToString(sum[:])) {
		return nil, refused("The LNURL server's invoice does not commit to its metadata (description hash)")
	}
	offer := &Offer{Bolt11: ans.PR}
	if len(ans.SuccessAction) > 0 && string(ans.SuccessAction) != "null" {
		sa, err := parseSuccessAction(ans.SuccessAction, cb.Hostname(), c.private)
		if err != nil {
			return nil, err
		}
		offer.SuccessAction = sa
	}
	return offer, nil
}

// checkOffer checks an amount and comment against a payRequest (LUD-06,
// LUD-12), before anything is asked of the server.
func checkOffer(params *PayParams, amountMsat int64, comment string) error {
	if amountMsat < params.MinSendable || amountMsat > params.MaxSendable {
		return ledger.ErrInvalidAmount.Reasonf("amount_msat %d is outside what the recipient accepts: %d to %d msat",
			amountMsat, params.MinSendable, params.MaxSendable)
	}
	if comment == "" {
		return nil
	}
	n := utf8.RuneCountInString(comment)
	switch {
	case params.CommentAllowed <= 0:
		return fault.Unprocessablef("comment_not_allowed", "The recipient takes no comment")
	case n > params.CommentAllowed:
		return fault.Unprocessablef("comment_too_long", "The comment is %d characters; the recipient takes at most %d", n, params.CommentAllowed)
	}
	return nil
}

func (c *Client) schemeOK(u *url.URL) bool {
	return u.Scheme == "https" || (c.private && u.Scheme == "http")
}

// unreachable is the error of a request that got no answer to read.
func unreachable(err error) error {
	var ce *host.CallError
	if errors.As(err, &ce) {
		return fault.Unprocessablef("lnurl_unreachable", "The LNURL server could not be reached: %s", truncate(ce.Message, 200))
	}
	return fault.Unprocessablef("lnurl_unreachable", "The LNURL server could not be reached")
}

// Resolve returns a BOLT11 invoice of amountMsat for a Lightning Address:
// the host's AddressResolver, for WebAssembly plugins' ln_address call.
// Its refusals are host call errors (code "invalid" or "lnurl").
func (c *Client) Resolve(ctx context.Context, address string, amountMsat int64, comment string) (string, error) {
	t, ok := parseAddress(address, c.private)
	if !ok {
		return "", &host.CallError{Code: "invalid", Message: strconv.Quote(address) + " is not a Lightning Address"}
	}
	if amountMsat <= 0 {
		return "", &host.CallError{Code: "invalid", Message: "amount_msat must be positive"}
	}
	params, err := c.Params(ctx, t.url)
	if err != nil {
		return "", callError(err)
	}
	if comment != "" && params.CommentAllowed >= 0 && utf8.RuneCountInString(comment) > params.CommentAllowed {
		comment = string([]rune(comment)[:params.CommentAllowed]) // a plugin's comment is trimmed, not refused
	}
	offer, err := c.Invoice(ctx, params, amountMsat, comment, "")
	if err != nil {
		return "", callError(err)
	}
	return offer.Bolt11, nil
}

// callError is err as a host call error.
func callError(err error) error {
	if f, ok := fault.As(err); ok {
		return &host.CallError{Code: "lnurl", Message: f.Reason}
	}
	return err
}

// payAnswer is the callback's answer.
type payAnswer struct {
	PR            string          `json:"pr"`
	SuccessAction json.RawMessage `json:"successAction"`
	Status        string          `json:"status"`
	Reason        string          `json:"reason"`
}

// parsePayParams decodes and checks a LUD-06 payRequest.
func parsePayParams(status int, body []byte) (*PayParams, error) {
	var p struct {
		PayParams
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, refused("The LNURL server's answer (HTTP %d) is not JSON", status)
	}
	if strings.EqualFold(p.Status, "ERROR") {
		return nil, refused("The LNURL server refused: %s", truncate(p.Reason, 200))
	}
	switch {
	case status != 200:
		return nil, refused("The LNURL server answered HTTP %d", status)
	case p.Tag == "withdrawRequest":
		return nil, errWithdrawLink
	case p.Tag != "payRequest":
		return nil, refused("Not an LNURL-pay request (tag %q)", truncate(p.Tag, 40))
	case p.MinSendable <= 0 || p.MaxSendable < p.MinSendable:
		return nil, refused("The LNURL server's sendable range %d..%d is not valid", p.MinSendable, p.MaxSendable)
	case p.Callback == "" || p.Metadata == "":
		return nil, refused("The LNURL server's payRequest has no callback or metadata")
	}
	var meta [][]json.RawMessage
	if err := json.Unmarshal([]byte(p.Metadata), &meta); err != nil {
		return nil, refused("The LNURL server's metadata is not a JSON array of entries")
	}
	plain := false
	for _, m := range meta {
		var kind string
		if len(m) >= 2 && json.Unmarshal(m[0], &kind) == nil && kind == "text/plain" {
			plain = true
		}
	}
	if !plain {
		return nil, refused("The LNURL server's metadata has no text/plain entry")
	}
	if p.CommentAllowed < 0 {
		p.CommentAllowed = 0
	}
	return &p.PayParams, nil
}

// parsePayAnswer decodes the callback's answer.
func parsePayAnswer(status int, body []byte) (*payAnswer, error) {
	var a payAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, refused("The LNURL callback's answer (HTTP %d) is not JSON", status)
	}
	if strings.EqualFold(a.Status, "ERROR") {
		return nil, refused("The LNURL server refused: %s", truncate(a.Reason, 200))
	}
	if status != 200 || a.PR == "" {
		return nil, refused("The LNURL callback gave no invoice (HTTP %d)", status)
	}
	if len(a.PR) > 7089 {
		return nil, refused("The LNURL server's invoice is too long")
	}
	return &a, nil
}

// maxActionText bounds a success action's message and description
// (LUD-09: 144 characters).
const maxActionText = 144

// parseSuccessAction checks a LUD-09 success action; a url action must be
// on the callback's host.
func parseSuccessAction(raw json.RawMessage, callbackHost string, private bool) (*SuccessAction, error) {
	var sa SuccessAction
	if err := json.Unmarshal(raw, &sa); err != nil {
		return nil, refused("The LNURL server's success action is not a JSON object")
	}
	bad := func(why string) error { return refused("The LNURL server's success action is not valid: %s", why) }
	switch sa.Tag {
	case "message":
		if sa.Message == "" || utf8.RuneCountInString(sa.Message) > maxActionText {
			return nil, bad("message must be 1 to 144 characters")
		}
		return &SuccessAction{Tag: "message", Message: sa.Message}, nil
	case "url":
		u, err := url.Parse(sa.URL)
		if err != nil || !(u.Scheme == "https" || (private && u.Scheme == "http")) || !strings.EqualFold(u.Hostname(), callbackHost) {
			return nil, bad("url must be an https URL on the callback's host")
		}
		if utf8.RuneCountInString(sa.Description) > maxActionText {
			return nil, bad("description must be at most 144 characters")
		}
		return &SuccessAction{Tag: "url", Description: sa.Description, URL: sa.URL}, nil
	case "aes":
		iv, err := base64.StdEncoding.DecodeString(sa.IV)
		if err != nil || len(iv) != aes.BlockSize || len(sa.IV) != 24 {
			return nil, bad("iv must be 16 bytes in base64")
		}
		ct, err := base64.StdEncoding.DecodeString(sa.Ciphertext)
		if err != nil || len(ct) == 0 || len(ct) > 4096 || len(ct)%aes.BlockSize != 0 {
			return nil, bad("ciphertext must be whole AES blocks in base64, at most 4 KiB")
		}
		if utf8.RuneCountInString(sa.Description) > maxActionText {
			return nil, bad("description must be at most 144 characters")
		}
		return &SuccessAction{Tag: "aes", Description: sa.Description, Ciphertext: sa.Ciphertext, IV: sa.IV}, nil
	}
	return nil, bad("unknown tag " + strconv.Quote(truncate(sa.Tag, 20)))
}

// Decrypt returns an aes action with its plaintext, decrypted with the
// preimage (hex): AES-256-CBC, PKCS#7 padding (LUD-10). Any other action,
// or one that does not decrypt, is returned as it is.
func (sa *SuccessAction) Decrypt(preimage string) *SuccessAction {
	if sa.Tag != "aes" {
		return sa
	}
	key, err := hex.DecodeString(preimage)
	if err != nil || len(key) != 32 {
		return sa
	}
	iv, err1 := base64.StdEncoding.DecodeString(sa.IV)
	ct, err2 := base64.StdEncoding.DecodeString(sa.Ciphertext)
	if err1 != nil || err2 != nil || len(iv) != aes.BlockSize || len(ct) == 0 || len(ct)%aes.BlockSize != 0 {
		return sa
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return sa
	}
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(pt, ct)
	pad := int(pt[len(pt)-1])
	if pad == 0 || pad > aes.BlockSize || pad > len(pt) {
		return sa
	}
	for _, b := range pt[len(pt)-pad:] {
		if int(b) != pad {
			return sa
		}
	}
	pt = pt[:len(pt)-pad]
	if !utf8.Valid(pt) {
		return sa
	}
	out := *sa
	out.Plaintext = string(pt)
	return &out
}

// lnurlTarget is a parsed LNURL-pay input: where its payRequest is, and
// the Lightning Address it names, if it is one.
type lnurlTarget struct {
	url      string
	address  string // user@domain, lower case; "" for an LNURL
	user     string
	domain   string
	fromAddr bool
}

var (
	addrUserRE   = regexp.MustCompile(`^[a-z0-9._+-]{1,64}$`)
	addrDomainRE = regexp.MustCompile(`^[a-z0-9.-]{1,253}(:[0-9]{1,5})?$`)
)

// parseAddress reads a Lightning Address (LUD-16), optionally prefixed by
// "lightning:".
func parseAddress(s string, private bool) (lnurlTarget, bool) {
	if len(s) > 400 {
		return lnurlTarget{}, false
	}
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "lightning:")
	user, domain, ok := strings.Cut(s, "@")
	if !ok || !addrUserRE.MatchString(user) || !addrDomainRE.MatchString(domain) ||
		strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") || strings.Contains(domain, "..") {
		return lnurlTarget{}, false
	}
	scheme := "https"
	if private || strings.HasSuffix(strings.Split(domain, ":")[0], ".onion") {
		scheme = "http" // LUD-16: onion services over http; tests reach httptest servers
	}
	return lnurlTarget{url: scheme + "://" + domain + "/.well-known/lnurlp/" + user, address: user + "@" + domain,
		user: user, domain: domain, fromAddr: true}, true
}

// parseLNURL reads an LNURL (LUD-01 bech32 lnurl1…, LUD-17 lnurlp://, or
// an https URL), optionally prefixed by "lightning:".
func parseLNURL(s string, private bool) (lnurlTarget, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 2048 {
		return lnurlTarget{}, false
	}
	if strings.HasPrefix(strings.ToLower(s), "lightning:") {
		s = s[len("lightning:"):]
	}
	lower := strings.ToLower(s)
	var raw string
	switch {
	case strings.HasPrefix(lower, "lnurl1"):
		u, err := decodeLNURL(lower)
		if err != nil {
			return lnurlTarget{}, false
		}
		raw = u
	case strings.HasPrefix(lower, "lnurlp://"):
		raw = "https://" + s[len("lnurlp://"):]
		if private {
			raw = "http://" + s[len("lnurlp://"):]
		}
	case strings.HasPrefix(lower, "https://"), private && strings.HasPrefix(lower, "http://"):
		raw = s
	default:
		return lnurlTarget{}, false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || !(u.Scheme == "https" || (private && u.Scheme == "http")) {
		return lnurlTarget{}, false
	}
	t := lnurlTarget{url: u.String(), domain: strings.ToLower(u.Host)}
	if user, ok := strings.CutPrefix(u.Path, "/.well-known/lnurlp/"); ok && addrUserRE.MatchString(strings.ToLower(user)) {
		t.user = strings.ToLower(user)
	}
	return t, true
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

var _ contract.AddressResolver = (*Client)(nil)
