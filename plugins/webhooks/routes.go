package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// CreateRequest registers a webhook of the caller's wallet.
type CreateRequest struct {
	// URL receives the deliveries: https, or http to a private or loopback
	// host when plugins.allow_private_hosts is set.
	URL *string `json:"url"`
	// Events are the event types to deliver (invoice.settled,
	// payment.settled, payment.failed, onchain.deposit).
	Events      []string `json:"events"`
	Description *string  `json:"description,omitempty"`
}

// AdminCreateRequest registers a webhook of any wallet.
type AdminCreateRequest struct {
	WalletID    *string  `json:"wallet_id"`
	URL         *string  `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description,omitempty"`
}

// Accepted is the answer of a test delivery.
type Accepted struct {
	// EventID is the test event's id (negative: never an outbox event's).
	EventID int64 `json:"event_id"`
}

// TestEvent is the type of the event POST …/test sends.
const TestEvent = "webhook.test"

// maxDescription bounds a description, in characters.
const maxDescription = 256

// routes are the plugin's HTTP routes: the caller's own under /v1/me, and
// the admin's over every wallet under /v1/webhooks.
func (p *Plugin) routes() []host.BuiltinRoute {
	mine, anyWallet := host.Mine, host.AnyWallet
	listQuery := host.ListQuery
	return []host.BuiltinRoute{
		{Method: "POST", Path: "/v1/me/webhooks", Access: host.User, Scope: auth.WriteWallet, Status: http.StatusCreated,
			Summary: "Register a webhook of the caller's wallet; the signing secret is returned once",
			Body:    CreateRequest{}, Resp: Webhook{}, Handle: p.createMine},
		{Method: "GET", Path: "/v1/me/webhooks", Access: host.User, Scope: auth.ReadWallet, Status: http.StatusOK,
			Summary: "List the caller's webhooks (no secrets)", Query: listQuery, Resp: []Webhook{}, Handle: mine(p.list)},
		{Method: "GET", Path: "/v1/me/webhooks/event-types", Access: host.User, Status: http.StatusOK,
			Summary: "The event types a webhook may ask for: the ledger's and those the plugins emit",
			Resp:    EventTypes{}, Handle: func(context.Context, *host.BuiltinRequest) (any, error) {
				return EventTypes{EventTypes: p.eventTypes()}, nil
			}},
		{Method: "GET", Path: "/v1/me/webhooks/{id}", Access: host.User, Scope: auth.ReadWallet, Status: http.StatusOK,
			Summary: "Read one of the caller's webhooks", Resp: Webhook{}, Handle: mine(p.get)},
		{Method: "DELETE", Path: "/v1/me/webhooks/{id}", Access: host.User, Scope: auth.WriteWallet, Status: http.StatusNoContent,
			Summary: "Delete one of the caller's webhooks and its queue", Handle: mine(p.delete)},
		{Method: "GET", Path: "/v1/me/webhooks/{id}/deliveries", Access: host.User, Scope: auth.ReadWallet, Status: http.StatusOK,
			Summary: "The delivery attempts of one of the caller's webhooks, newest first", Query: []string{"limit"},
			Resp: []Attempt{}, Handle: mine(p.deliveries)},
		{Method: "POST", Path: "/v1/me/webhooks/{id}/test", Access: host.User, Scope: auth.WriteWallet, Status: http.StatusAccepted,
			Summary: "Queue a webhook.test event to one of the caller's webhooks", Resp: Accepted{}, Handle: mine(p.test)},

		{Method: "POST", Path: "/v1/webhooks", Access: host.Admin, Scope: auth.WriteWallet, Status: http.StatusCreated,
			Summary: "Register a webhook of any wallet (wallet_id); the signing secret is returned once",
			Body:    AdminCreateRequest{}, Resp: Webhook{}, Handle: p.createAny},
		{Method: "GET", Path: "/v1/webhooks", Access: host.Admin, Scope: auth.ReadWallet, Status: http.StatusOK,
			Summary: "List the webhooks of every wallet, or of wallet_id", Query: append([]string{"wallet_id"}, listQuery...),
			Resp: []Webhook{}, Handle: p.listAny},
		{Method: "GET", Path: "/v1/webhooks/{id}", Access: host.Admin, Scope: auth.ReadWallet, Status: http.StatusOK,
			Summary: "Read any webhook", Resp: Webhook{}, Handle: anyWallet(p.get)},
		{Method: "DELETE", Path: "/v1/webhooks/{id}", Access: host.Admin, Scope: auth.WriteWallet, Status: http.StatusNoContent,
			Summary: "Delete any webhook and its queue", Handle: anyWallet(p.delete)},
		{Method: "GET", Path: "/v1/webhooks/{id}/deliveries", Access: host.Admin, Scope: auth.ReadWallet, Status: http.StatusOK,
			Summary: "The delivery attempts of any webhook, newest first", Query: []string{"limit"},
			Resp: []Attempt{}, Handle: anyWallet(p.deliveries)},
		{Method: "POST", Path: "/v1/webhooks/{id}/test", Access: host.Admin, Scope: auth.WriteWallet, Status: http.StatusAccepted,
			Summary: "Queue a webhook.test event to any webhook", Resp: Accepted{}, Handle: anyWallet(p.test)},
	}
}

func (p *Plugin) createMine(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	b := req.Body.(*CreateRequest)
	return p.Create(ctx, req.Caller.WalletID, b.URL, b.Events, b.Description)
}

func (p *Plugin) createAny(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	b := req.Body.(*AdminCreateRequest)
	if b.WalletID == nil {
		return nil, fault.Invalidf("Missing required field: wallet_id")
	}
	id, err := host.ParseUUID(*b.WalletID, "wallet_id")
	if err != nil {
		return nil, err
	}
	if p.exists != nil {
		if err := p.exists(ctx, id); err != nil {
			return nil, err
		}
	}
	return p.Create(ctx, id, b.URL, b.Events, b.Description)
}

// Create registers a webhook of walletID and returns it with its secret.
func (p *Plugin) Create(ctx context.Context, walletID string, rawURL *string, events []string, description *string) (*Webhook, error) {
	if rawURL == nil {
		return nil, fault.Invalidf("Missing required field: url")
	}
	if events == nil {
		return nil, fault.Invalidf("Missing required field: events")
	}
	u, err := p.checkURL(ctx, *rawURL)
	if err != nil {
		return nil, err
	}
	evs, err := checkEvents(events, p.eventTypes())
	if err != nil {
		return nil, err
	}
	if description != nil && utf8.RuneCountInString(*description) > maxDescription {
		return nil, fault.Unprocessablef("invalid_description", "The description is longer than %d characters", maxDescription)
	}
	secret := newSecret()
	r := &hookRow{ID: uuid.NewString(), WalletID: walletID, URL: u, Events: joinFields(evs), Description: description,
		Secret: secret, CreatedAt: time.Now().UTC()}
	if err := p.insertHook(ctx, r, p.cfg.MaxPerWallet); err != nil {
		return nil, err
	}
	w := r.api(host.StreamState{Active: true})
	w.Secret = secret
	return w, nil
}

// EventTypes are the event types a webhook may ask for.
type EventTypes struct {
	EventTypes []string `json:"event_types"`
}

// eventTypes are the event types a webhook may ask for, sorted.
func (p *Plugin) eventTypes() []string {
	if p.types != nil {
		return p.types()
	}
	return host.LedgerEventTypes()
}

// checkEvents returns the event types sorted, once each; one not among
// known, or none, is refused.
func checkEvents(events, known []string) ([]string, error) {
	if len(events) == 0 {
		return nil, fault.Unprocessablef("invalid_event_type", "events: name at least one event type")
	}
	var out []string
	for _, e := range events {
		if !slices.Contains(known, e) {
			return nil, fault.Unprocessablef("invalid_event_type", "Unknown event type %q; known: %s", e, joinFields(known))
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out, nil
}

func joinFields(ss []string) string { return strings.Join(ss, " ") }

// newSecret returns a new signing secret: 32 random bytes, base64url.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

func (p *Plugin) list(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	page, err := req.Page()
	if err != nil {
		return nil, err
	}
	rs, err := p.hooks(ctx, walletID, page)
	if err != nil {
		return nil, err
	}
	out, err := p.records(ctx, rs)
	if err != nil {
		return nil, err
	}
	return host.List(page, out, func(w **Webhook) store.Cursor { return store.Cursor{CreatedAt: (*w).CreatedAt, ID: (*w).ID} }), nil
}

func (p *Plugin) listAny(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	walletID, err := req.QueryUUID("wallet_id")
	if err != nil {
		return nil, err
	}
	return p.list(ctx, req, walletID)
}

func (p *Plugin) get(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	id, err := req.PathUUID("id")
	if err != nil {
		return nil, err
	}
	r, err := p.hook(ctx, id, walletID)
	if err != nil {
		return nil, err
	}
	return p.record(ctx, r)
}

func (p *Plugin) delete(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	id, err := req.PathUUID("id")
	if err != nil {
		return nil, err
	}
	return nil, p.deleteHook(ctx, id, walletID)
}

func (p *Plugin) deliveries(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	id, err := req.PathUUID("id")
	if err != nil {
		return nil, err
	}
	limit := 100
	if v := req.Query.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return nil, fault.Invalidf("Invalid limit: expected an integer from 1 to 1000")
		}
		limit = n
	}
	if _, err := p.hook(ctx, id, walletID); err != nil {
		return nil, err
	}
	return p.attempts(ctx, id, limit)
}

func (p *Plugin) test(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	id, err := req.PathUUID("id")
	if err != nil {
		return nil, err
	}
	h, err := p.hook(ctx, id, walletID)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	evID := -now.UnixMicro()
	body, err := json.Marshal(map[string]any{"id": evID, "type": TestEvent, "created_at": now, "wallet_id": h.WalletID,
		"data": map[string]string{"webhook_id": h.ID}})
	if err != nil {
		return nil, err
	}
	if err := p.host.TestStream(ctx, h.ID, evID, body); errors.Is(err, host.ErrStreamNotFound) {
		w, rerr := p.record(ctx, h)
		if rerr != nil {
			return nil, rerr
		}
		return nil, fault.Unprocessablef("webhook_disabled", "The webhook is disabled: %s", deref(w.DisabledReason))
	} else if err != nil {
		return nil, err
	}
	return Accepted{EventID: evID}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
