package nwc

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/host"
)

// strangers is the rate limit's bucket of every key with no connection.
const strangers = "keys of no connection"

// maxRequestContent bounds the encrypted content of a request.
const maxRequestContent = 64 << 10

// request is a decrypted NIP-47 request.
type request struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// reply is one response of a request: a result, or an error; d is the
// response's d tag (multi_pay_invoice's invoice id), if any.
type reply struct {
	result any
	err    *nwcError
	d      string
}

// response is a NIP-47 response's content.
type response struct {
	ResultType string    `json:"result_type"`
	Error      *nwcError `json:"error"`
	Result     any       `json:"result"`
}

// handle answers one request event from a relay, with the wallet key it
// is addressed to: the connection's own, or the shared service key. A
// request that is addressed to no key of the service, not validly signed
// or expired is ignored. One
// answered before (a relay's replay, a restart's re-read) gets its stored
// responses again: nothing runs twice. An unknown or revoked client key is
// UNAUTHORIZED; nothing of any wallet is read for it.
func (p *Plugin) handle(ctx context.Context, ev *gonostr.Event) {
	if ev.Kind != kindRequest || len(ev.Content) > maxRequestContent {
		return
	}
	to := p.addressee(ev)
	if to == "" {
		return
	}
	if ok, err := ev.CheckSignature(); err != nil || !ok {
		return
	}
	if exp := ev.Tags.Find("expiration"); exp != nil {
		if at, err := strconv.ParseInt(exp[1], 10, 64); err == nil && p.cfg.Now().Unix() > at {
			return
		}
	}
	if stored, err := p.answered(ctx, ev.ID); err != nil {
		p.log.WarnContext(ctx, "nwc: reading a request's answer", "err", err)
		return
	} else if stored != nil {
		p.republish(ctx, *stored)
		return
	}
	conn, secret, cerr := p.connectionTo(ctx, to, ev.PubKey)
	if cerr != nil && !errors.Is(cerr, errNoConnection) {
		p.log.WarnContext(ctx, "nwc: reading a connection", "err", cerr)
		return // answered when the relay or client sends it again
	}
	if secret == "" {
		return // a key of a connection not yet (or no longer) known here
	}
	scheme, known := schemeOf(ev)
	var req request
	plain, derr := decrypt(scheme, ev.Content, ev.PubKey, secret)
	if derr == nil {
		derr = json.Unmarshal([]byte(plain), &req)
	}
	var replies []reply
	switch {
	case !known:
		replies = []reply{{err: errorf(codeUnsupportedEncryption, "the wallet speaks %s", encryptions)}}
	case cerr != nil:
		if !p.limits.allow(strangers) {
			return // keys of no connection share one bucket: a flood of them costs a lookup each
		}
		replies = []reply{{err: errorf(codeUnauthorized, "no wallet is connected to this key")}}
	case derr != nil || req.Method == "":
		replies = []reply{{err: errorf(codeOther, "the request is not a NIP-47 request this key encrypted")}}
	case !p.limits.allow(conn.ID):
		replies = []reply{{err: errorf(codeRateLimited, "too many requests: retry in a few seconds")}}
	default:
		replies = p.run(ctx, conn, ev.ID, req)
	}
	out, err := p.seal(ev, scheme, secret, req.Method, replies)
	if err != nil {
		p.log.WarnContext(ctx, "nwc: sealing an answer", "err", err)
		return
	}
	if conn != nil && !transient(replies) {
		out, err = p.storeAnswer(ctx, &requestRow{EventID: ev.ID, ConnectionID: conn.ID, Method: req.Method,
			Responses: &out, CreatedAt: p.cfg.Now().UTC()})
		if err != nil {
			p.log.WarnContext(ctx, "nwc: storing an answer", "err", err)
		}
	}
	if conn != nil {
		p.used(ctx, conn)
	}
	// Stored: a copy of the request arriving from now on is answered from
	// the store, even while this answer is still on its way.
	p.relays.release(ev.ID)
	p.republish(ctx, out)
}

// transient reports whether an answer holds an error the same request may
// not meet again (a rate limit, a payment still in flight): such an answer
// is not stored, so a copy of the request is answered anew.
func transient(replies []reply) bool {
	for _, r := range replies {
		if r.err != nil && (r.err.transient || r.err.Code == codeRateLimited || r.err.Code == codeInternal) {
			return true
		}
	}
	return false
}

// run executes a known connection's request with its delegation.
func (p *Plugin) run(ctx context.Context, conn *connRow, eventID string, req request) []reply {
	m, ok := methods[req.Method]
	if !ok {
		return []reply{{err: errorf(codeNotImplemented, "%s is not a method of this wallet", req.Method)}}
	}
	if !conn.allows(req.Method) && !alwaysAnswered[req.Method] {
		return []reply{{err: errorf(codeRestricted, "this connection may not %s", req.Method)}}
	}
	if m.run == nil {
		return []reply{{err: errorf(codeNotImplemented, "%s is not available on this wallet's node", req.Method)}}
	}
	c, err := p.host.ActAs(ctx, conn.ID)
	if err != nil {
		var ce *host.CallError
		if errors.As(err, &ce) && ce.Code == host.ErrDelegationNotFound {
			return []reply{{err: errorf(codeUnauthorized, "the connection was revoked or has expired")}}
		}
		return []reply{{err: p.failed(ctx, "act_as", err)}}
	}
	params := req.Params
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	return m.run(ctx, &call{p: p, c: c, conn: conn, eventID: eventID}, params)
}

// failed logs err, which a response names only as INTERNAL.
func (p *Plugin) failed(ctx context.Context, method string, err error) *nwcError {
	e := errorOf(err)
	if e.Code == codeInternal {
		p.log.ErrorContext(ctx, "nwc: a request failed", "method", method, "err", err)
	}
	return e
}

// seal makes the signed response events of replies, in the request's
// encryption, tagged p (the client) and e (the request), and returns
// them as a JSON array.
func (p *Plugin) seal(req *gonostr.Event, scheme, secret, method string, replies []reply) (string, error) {
	evs := make([]*gonostr.Event, 0, len(replies))
	for _, r := range replies {
		tags := gonostr.Tags{{"e", req.ID}}
		if r.d != "" {
			tags = append(tags, gonostr.Tag{"d", r.d})
		}
		ev, err := p.sealReply(req, scheme, secret, method, r, tags)
		if err != nil {
			return "", err
		}
		evs = append(evs, ev)
	}
	out, err := json.Marshal(evs)
	return string(out), err
}

// republish sends stored response events to the relays.
func (p *Plugin) republish(ctx context.Context, stored string) {
	var evs []*gonostr.Event
	if err := json.Unmarshal([]byte(stored), &evs); err != nil {
		p.log.WarnContext(ctx, "nwc: decoding a stored answer", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout+time.Second)
	defer cancel()
	for _, ev := range evs {
		if err := p.relays.publish(ctx, ev); err != nil && ctx.Err() == nil {
			p.log.WarnContext(ctx, "nwc: publishing an answer", "err", err)
		}
	}
}
