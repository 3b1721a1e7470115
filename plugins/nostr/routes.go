package nostr

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/hearthwallet/hearth/contract"

	"github.com/google/uuid"
	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// Names is a NIP-05 answer.
type Names struct {
	Names  map[string]string   `json:"names"`
	Relays map[string][]string `json:"relays,omitempty"`
}

// Zap is a zap received by the wallet, as its owner sees it: the request,
// and once paid the receipt and its publication on each relay.
type Zap struct {
	InvoiceID   string `json:"invoice_id"`
	LnAddressID string `json:"ln_address_id"`
	AmountMsat  int64  `json:"amount_msat"`
	// Sender is the request's pubkey (a throwaway key when Anonymous).
	Sender    string `json:"sender"`
	Anonymous bool   `json:"anonymous"`
	// EventID is the zapped note, if any.
	EventID *string `json:"event_id,omitempty"`
	// Comment is the request's content.
	Comment   string     `json:"comment,omitempty"`
	ReceiptID *string    `json:"receipt_id,omitempty"`
	PaidAt    *time.Time `json:"paid_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	Relays    []Relay    `json:"relays"`
}

// Relay is a receipt's publication on one relay: pending (with the next
// attempt's time), published, or failed (given up after the retry window).
type Relay struct {
	URL         string     `json:"url"`
	State       string     `json:"state"`
	Attempts    int        `json:"attempts"`
	LastError   *string    `json:"last_error,omitempty"`
	NextAt      *time.Time `json:"next_attempt_at,omitempty"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
}

func (z *zapRow) api() Zap {
	out := Zap{InvoiceID: z.InvoiceID, LnAddressID: z.LnAddressID, AmountMsat: z.AmountMsat, Sender: z.Sender,
		Anonymous: z.Anonymous, EventID: z.EventID, ReceiptID: z.ReceiptID, PaidAt: utc(z.PaidAt),
		CreatedAt: z.CreatedAt.UTC(), Relays: []Relay{}}
	var ev gonostr.Event
	if json.Unmarshal([]byte(z.Request), &ev) == nil {
		out.Comment = ev.Content
	}
	return out
}

// api is the relay's publication: its row once done, else its send's
// status among sends (by id).
func (r *relayRow) api(sends map[string]*host.SendStatus) Relay {
	out := Relay{URL: r.Relay, State: r.State, Attempts: r.Attempts, LastError: r.LastError, PublishedAt: utc(r.PublishedAt)}
	if r.State != pending {
		return out
	}
	next := r.NextAt.UTC()
	if r.SendID != nil && sends[*r.SendID] != nil {
		st := sends[*r.SendID]
		out.Attempts, out.LastError = st.Attempts, st.LastError
		switch st.State {
		case host.SendDelivered:
			out.State, out.PublishedAt = published, utc(st.DoneAt)
		case host.SendGivenUp:
			out.State = givenUp
		default:
			next = st.NextAt.UTC()
		}
	}
	if out.State == pending {
		out.NextAt = &next
	}
	return out
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

var errNoName = fault.New(fault.NotFound, "not_found", "Unknown name")

// routes are NIP-05 (public) and the owner's zaps.
func (p *Plugin) routes() []host.BuiltinRoute {
	return []host.BuiltinRoute{
		{Method: "GET", Path: "/.well-known/nostr.json", Access: host.Public, Status: http.StatusOK,
			Summary: "NIP-05: the Nostr key of name, an active Lightning Address that allows Nostr; 404 otherwise",
			Query:   []string{"name"}, Resp: Names{}, AnyOrigin: true, Handle: p.nip05},
		{Method: "GET", Path: "/v1/me/zaps", Access: host.User, Scope: auth.ReadTransaction, Status: http.StatusOK,
			Summary: "The zaps the caller's wallet received, newest first, with each receipt's publication per relay",
			Query:   host.ListQuery, Resp: []Zap{}, Handle: p.listZaps},
		{Method: "GET", Path: "/v1/me/zaps/{invoice_id}", Access: host.User, Scope: auth.ReadTransaction, Status: http.StatusOK,
			Summary: "One zap of the caller's wallet, by its invoice id", Resp: Zap{}, Handle: p.oneZap},
	}
}

func (p *Plugin) nip05(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	name := req.Query.Get("name")
	var names contract.Names
	if p.names != nil {
		names = p.names()
	}
	if name == "" || names == nil {
		return nil, errNoName
	}
	pk, err := names.NostrName(ctx, name)
	if errors.Is(err, contract.ErrNoNostrName) {
		return nil, errNoName
	}
	if err != nil {
		return nil, err
	}
	out := &Names{Names: map[string]string{name: pk}}
	if len(p.cfg.DefaultRelays) > 0 {
		out.Relays = map[string][]string{pk: p.cfg.DefaultRelays}
	}
	return out, nil
}

func (p *Plugin) listZaps(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	pg, err := req.Page()
	if err != nil {
		return nil, err
	}
	zs, err := p.zaps(ctx, req.Caller.WalletID, "", pg)
	if err != nil {
		return nil, err
	}
	return host.List(pg, zs, func(z *Zap) store.Cursor { return store.Cursor{CreatedAt: z.CreatedAt, ID: z.InvoiceID} }), nil
}

func (p *Plugin) oneZap(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	raw := req.Params["invoice_id"]
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return nil, ErrZapNotFound
	}
	zs, err := p.zaps(ctx, req.Caller.WalletID, id.String(), store.Page{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(zs) == 0 {
		return nil, ErrZapNotFound
	}
	return &zs[0], nil
}
