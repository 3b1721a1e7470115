package nwc

import (
	"encoding/json"
	"fmt"

	gonostr "github.com/nbd-wtf/go-nostr"
)

// maxPlaintext is the most a response's plaintext may hold: NIP-44 seals
// at most 65,535 bytes, and NIP-04's events are held to the same so that
// relays take them.
const maxPlaintext = 65_535

// sealReply seals one reply to req. An answer that cannot be sealed (too
// large for one event, or refused by the cipher) is answered as an OTHER
// error saying so, never left unanswered: an app waits for every request's
// response.
func (p *Plugin) sealReply(req *gonostr.Event, scheme, secret, method string, r reply, tags gonostr.Tags) (*gonostr.Event, error) {
	ev, err := p.sealBody(req, scheme, secret, method, r, tags)
	if err == nil {
		return ev, nil
	}
	p.log.Warn("nwc: an answer could not be sealed; answering an error", "method", method, "err", err)
	fallback := reply{err: errorf(codeOther, "the answer to %s could not be sent in one event: %v", method, err)}
	return p.sealBody(req, scheme, secret, method, fallback, tags)
}

// sealBody is reply r to req, encrypted and signed.
func (p *Plugin) sealBody(req *gonostr.Event, scheme, secret, method string, r reply, tags gonostr.Tags) (*gonostr.Event, error) {
	body := response{ResultType: method, Error: r.err, Result: r.result}
	if r.err != nil {
		body.Result = nil
	}
	plain, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding an answer: %w", err)
	}
	if len(plain) > maxPlaintext {
		return nil, fmt.Errorf("it holds %d bytes, more than %d", len(plain), maxPlaintext)
	}
	return p.sealed(kindResponse, scheme, string(plain), secret, req.PubKey, tags...)
}
