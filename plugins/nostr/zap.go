package nostr

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/contract"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
)

// KindZapRequest and KindZapReceipt are NIP-57's kinds.
const (
	KindZapRequest = 9734
	KindZapReceipt = 9735
)

// maxRequestBytes bounds a zap request (relays lists make them long; 8 KiB
// and more are common).
const maxRequestBytes = 64 << 10

// errZap is a refused zap request: the callback answers it in the LUD
// error form with its reason.
var errZap = fault.New(fault.Invalid, "invalid_zap_request", "Invalid zap request")

func refuse(format string, args ...any) error {
	return errZap.Reasonf("Invalid zap request: "+format, args...)
}

// zapRequest is what a valid zap request names.
type zapRequest struct {
	event  gonostr.Event
	relays []string // ws(s) URLs, in order, without duplicates, at most MaxRelays
}

// CheckZap validates a zap request per NIP-57 appendix D:
//   - a JSON event of kind 9734 whose id and signature are valid;
//   - with tags, exactly one p, and it is the address's registered key
//     (a receipt names p as the zapped user: another key would credit a
//     zap to someone this address does not belong to);
//   - at most one e, at most one P, and a P is the sender's own key (the
//     receipt's P is the request's pubkey);
//   - a relays tag naming at least one ws:// or wss:// relay (the first
//     MaxRelays are published to, the rest ignored);
//   - an amount tag, when present, equal to the callback's amount;
//   - a tags, when present, valid coordinates (kind:pubkey:d).
//
// Anonymous zaps (an anon tag, signed by a throwaway key) are zap requests
// like any other.
func (p *Plugin) CheckZap(_ context.Context, r contract.ZapRequest) error {
	if p.NostrPubkey() == "" {
		return fmt.Errorf("nostr: the server's key is not loaded")
	}
	_, err := p.parse(r.Raw, r.RecipientPubkey, r.AmountMsat)
	return err
}

// parse validates raw (see CheckZap).
func (p *Plugin) parse(raw, recipient string, amount int64) (*zapRequest, error) {
	if len(raw) > maxRequestBytes {
		return nil, refuse("larger than %d bytes", maxRequestBytes)
	}
	var ev gonostr.Event
	if err := json.Unmarshal([]byte(raw), &ev); err != nil {
		return nil, refuse("not a JSON Nostr event")
	}
	if ev.Kind != KindZapRequest {
		return nil, refuse("kind %d, a zap request is of kind %d", ev.Kind, KindZapRequest)
	}
	if !isKey(ev.PubKey) {
		return nil, refuse("pubkey is not a 32-byte key in hex")
	}
	if !ev.CheckID() {
		return nil, refuse("its id is not the hash of its content")
	}
	if ok, err := ev.CheckSignature(); err != nil || !ok {
		return nil, refuse("bad signature")
	}
	if len(ev.Tags) == 0 {
		return nil, refuse("no tags")
	}
	count := map[string]int{}
	for _, t := range ev.Tags {
		if len(t) > 0 {
			count[t[0]]++
		}
	}
	if count["p"] != 1 {
		return nil, refuse("%d p tags, exactly one is needed", count["p"])
	}
	if pk := first(ev.Tags, "p"); valueOf(pk) != recipient {
		return nil, refuse("the p tag is not the Nostr key of this Lightning Address")
	}
	if count["e"] > 1 {
		return nil, refuse("%d e tags, at most one is allowed", count["e"])
	}
	if e := first(ev.Tags, "e"); e != nil && !isKey(valueOf(e)) {
		return nil, refuse("the e tag is not an event id in hex")
	}
	if count["P"] > 1 {
		return nil, refuse("%d P tags, at most one is allowed", count["P"])
	}
	if pp := first(ev.Tags, "P"); pp != nil && valueOf(pp) != ev.PubKey {
		return nil, refuse("the P tag is not the sender's key (the request's pubkey)")
	}
	if count["amount"] > 1 {
		return nil, refuse("%d amount tags, at most one is allowed", count["amount"])
	}
	if a := first(ev.Tags, "amount"); a != nil {
		n, err := strconv.ParseInt(valueOf(a), 10, 64)
		if err != nil || n != amount {
			return nil, refuse("the amount tag (%q msat) is not the amount asked (%d msat)", valueOf(a), amount)
		}
	}
	for _, t := range ev.Tags {
		if len(t) == 0 || t[0] != "a" {
			continue
		}
		if !coordinate(valueOf(t)) {
			return nil, refuse("the a tag %q is not an event coordinate kind:pubkey:d", valueOf(t))
		}
	}
	if first(ev.Tags, "relays") == nil {
		return nil, refuse("no relays tag: the receipt would go nowhere")
	}
	z := &zapRequest{event: ev, relays: p.relaysOf(ev)}
	if len(z.relays) == 0 {
		return nil, refuse("the relays tag names no ws:// or wss:// relay")
	}
	return z, nil
}

// relaysOf are the relays of ev's relays tag: ws(s) URLs, in order,
// without duplicates, the first MaxRelays.
func (p *Plugin) relaysOf(ev gonostr.Event) []string {
	rt := first(ev.Tags, "relays")
	if rt == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range rt[1:] {
		u, ok := relayURL(r)
		if !ok || seen[u] {
			continue
		}
		seen[u] = true
		if len(out) < p.cfg.MaxRelays {
			out = append(out, u)
		}
	}
	return out
}

// Zapped keeps the zap request with its invoice.
func (p *Plugin) Zapped(ctx context.Context, r contract.ZapRequest, inv *ledger.Invoice) error {
	z, err := p.parse(r.Raw, r.RecipientPubkey, r.AmountMsat)
	if err != nil {
		return err
	}
	row := &zapRow{InvoiceID: inv.ID, WalletID: r.WalletID, LnAddressID: r.AddressID, Request: r.Raw,
		Sender: z.event.PubKey, AmountMsat: r.AmountMsat, Anonymous: first(z.event.Tags, "anon") != nil,
		CreatedAt: time.Now().UTC()}
	if e := first(z.event.Tags, "e"); e != nil {
		id := valueOf(e)
		row.EventID = &id
	}
	return p.insertZap(ctx, row)
}

// receipt is the signed zap receipt (kind 9735) of request raw, paid by
// the invoice bolt11 with preimage at paid (NIP-57 appendix E).
func (p *Plugin) receipt(raw, bolt11 string, preimage *string, paid time.Time) (*gonostr.Event, error) {
	var req gonostr.Event
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		return nil, fmt.Errorf("decoding a stored zap request: %w", err)
	}
	ev := &gonostr.Event{Kind: KindZapReceipt, CreatedAt: gonostr.Timestamp(paid.Unix()), Content: ""}
	for _, key := range []string{"p", "e", "a", "k"} {
		for t := range req.Tags.FindAll(key) {
			if v := valueOf(t); v != "" {
				ev.Tags = append(ev.Tags, gonostr.Tag{key, v})
			}
		}
	}
	ev.Tags = append(ev.Tags, gonostr.Tag{"P", req.PubKey}, gonostr.Tag{"bolt11", bolt11}, gonostr.Tag{"description", raw})
	if preimage != nil {
		ev.Tags = append(ev.Tags, gonostr.Tag{"preimage", *preimage})
	}
	if err := ev.Sign(p.secretKey()); err != nil {
		return nil, fmt.Errorf("signing a zap receipt: %w", err)
	}
	return ev, nil
}

// relayURL normalises a relay URL: ws:// or wss://, a host, no user
// info; the path kept (relays are full URLs).
func relayURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if len(raw) > 512 {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" || u.User != nil || u.Fragment != "" {
		return "", false
	}
	u.Host = strings.ToLower(u.Host)
	if u.Path == "/" {
		u.Path = ""
	}
	return u.String(), true
}

// isKey reports whether s is 32 bytes in lower-case hex.
func isKey(s string) bool {
	if len(s) != 64 || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// coordinate reports whether s is kind:pubkey:d.
func coordinate(s string) bool {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 {
		return false
	}
	if _, err := strconv.ParseUint(parts[0], 10, 16); err != nil {
		return false
	}
	return isKey(parts[1])
}

// first is the first tag named key, whatever its length.
func first(tags gonostr.Tags, key string) gonostr.Tag {
	for _, t := range tags {
		if len(t) > 0 && t[0] == key {
			return t
		}
	}
	return nil
}

func valueOf(t gonostr.Tag) string {
	if len(t) < 2 {
		return ""
	}
	return t[1]
}
