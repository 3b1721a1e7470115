package host

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/wallet"
)

// A built-in plugin is Go code compiled into the server. Besides what every
// plugin has (a manifest, a grant, logs), a built-in may serve routes at
// paths of its own, with an access rule the HTTP layer enforces exactly as
// for its own routes, and may run background work on one replica at a
// time over the events of every wallet, after a durable cursor of its own.
// It keeps its state in tables of its own, made by its own migration: the
// host gives it no other storage, and it reaches into no other tables.

// Access says who may call a built-in's route.
type Access int

// The access rules of a built-in's routes.
const (
	// Public routes take no credential.
	Public Access = iota
	// User routes take any authenticated caller holding the route's scope.
	User
	// Admin routes take the admin principal holding the route's scope.
	Admin
)

// BuiltinRoute is one HTTP route a built-in serves. The HTTP layer authenticates
// the caller, checks the access rule and the scope, decodes the JSON body
// into a new value of Body's type (unknown fields, bad text and oversize
// bodies answer 400/413 before Handle runs), and writes Handle's answer as
// JSON; an error is answered as every route's error (core/fault).
type BuiltinRoute struct {
	// Method and Path, e.g. "GET" and "/v1/me/webhooks/{id}": path
	// parameters in braces.
	Method, Path string
	Access       Access
	// Scope the caller must hold; 0 for none (only for Public and
	// User routes that any caller may call).
	Scope auth.Scope
	// Summary documents the route in the OpenAPI document.
	Summary string
	// Query names the query parameters, for the document.
	Query []string
	// Body is the request body type (a struct value, not a pointer); nil
	// for none.
	Body any
	// Resp is the response body type, for the document; nil for none.
	Resp any
	// Status is the success status.
	Status int
	Handle func(ctx context.Context, req *BuiltinRequest) (any, error)

	// AnyOrigin adds Access-Control-Allow-Origin: * to every answer,
	// errors included (LUD-01: browsers' wallets call LNURL endpoints).
	AnyOrigin bool
	// ErrorBody, when set, is the body of an error answer (with the
	// error's status) instead of Hearth's {status, reason, code}: LNURL's
	// {"status":"ERROR","reason":…}. A 500 still hides its detail.
	ErrorBody func(status int, reason string) any
	// Limit, when set, rate-limits the route per client address (the
	// address as the HTTP layer sees it, behind a trusted proxy too):
	// routes naming the same Limit.Name share one bucket per address.
	Limit *RateLimit
}

// RateLimit is a token bucket per client address: PerMinute tokens a
// minute, up to Burst at once. Over it the caller gets 429 with
// Retry-After.
type RateLimit struct {
	Name      string
	PerMinute int
	Burst     int
}

// Principal is who calls a User or Admin route of a built-in.
type Principal struct {
	UserID string
	// WalletID is the caller's own wallet.
	WalletID string
	Scopes   auth.Scopes
	Admin    bool
	// KeyID is the API key the caller authenticated with, if any: the
	// payments it makes are recorded with it.
	KeyID string
	// Budget, when set, bounds what the caller pays: the ledger counts
	// each payment against the key's budget (a budgeted API key, a
	// delegation).
	Budget *ledger.Budget
}

// BuiltinRequest is one call of a built-in's route.
type BuiltinRequest struct {
	// Caller is nil on Public routes.
	Caller *Principal
	// Params are the path parameters by name.
	Params map[string]string
	Query  url.Values
	// RawQuery is the query as sent, for a parameter whose exact bytes
	// matter more than form decoding ('+' is a space in Query).
	RawQuery string
	Header   http.Header
	// Body is a pointer to the decoded body (of Route.Body's type), nil
	// when the route takes none.
	Body any
}

// Builtin is a built-in plugin as the registry keeps it.
type Builtin struct {
	Manifest *Manifest
	Routes   []BuiltinRoute
	// Lead, when set, runs while the server runs, on one replica at a
	// time among those sharing the database (another takes over within
	// seconds of the leader's death); its context ends when the lead is
	// lost. events is the built-in's durable cursor over the events of
	// every wallet ("builtin:<name>") when its manifest declares
	// events:all, else nil.
	Lead func(ctx context.Context, events *Events)
	// PresentWallets, when set, fills what the built-in adds to wallet
	// records (the Lightning Address of each) before the API shows them.
	PresentWallets func(ctx context.Context, ws []*wallet.Wallet) error
	// ValueRecords, when set, fills the value of settled records
	// (ledger.Valuation) before the API shows them; it needs the
	// capability record:value.
	ValueRecords func(ctx context.Context, vs []*ledger.Valuation) error
	// TagField, when set, is the field of the invoice records that shows
	// the values of the built-in's invoice tags (ledger.Tag), beside tag:
	// for a field the records had before tags (ln_address_id). It needs
	// the capability invoice:present.
	TagField string
}

// builtins are the built-ins added with AddBuiltin, and the fields of
// the invoice records that show their tags (TagField), by plugin.
type builtins struct {
	mu        sync.Mutex
	list      []Builtin
	tagFields map[string]string
}

// showTagsAs has the invoices plugin makes from now on show their tags'
// values under field too: a field the records have not, and no other
// plugin's.
func (r *Registry) showTagsAs(plugin, field string) error {
	if err := ledger.ValidTagField(field); err != nil {
		return err
	}
	bs := r.builtins()
	bs.mu.Lock()
	defer bs.mu.Unlock()
	for p, f := range bs.tagFields {
		if f == field && p != plugin {
			return fmt.Errorf("invoice records show %s's tags as %q already", p, field)
		}
	}
	if bs.tagFields == nil {
		bs.tagFields = map[string]string{}
	}
	bs.tagFields[plugin] = field
	return nil
}

// tagField is the field plugin's invoices show their tags under, or "".
func (r *Registry) tagField(plugin string) string {
	bs := r.builtins()
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return bs.tagFields[plugin]
}

// TagFields lists the fields the built-ins' invoices show their tags
// under, sorted: for the API's description of the invoice record.
func (r *Registry) TagFields() []string {
	bs := r.builtins()
	bs.mu.Lock()
	defer bs.mu.Unlock()
	out := make([]string, 0, len(bs.tagFields))
	for _, f := range bs.tagFields {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

func (r *Registry) builtins() *builtins { return &r.builtin }

// AddBuiltin registers a built-in plugin built outside a descriptor (a
// test's): enabled, granted what it declares, bound to no wallet. Its
// routes are in Routes; its Lead runs under RunBuiltins. A built-in of the
// server is added with AddFeature, which builds it in its environment.
func (r *Registry) AddBuiltin(b Builtin) (*Plugin, error) {
	p, err := r.RegisterBuiltin(b.Manifest, nil, "")
	if err != nil {
		return nil, err
	}
	if err := r.attach(p, b); err != nil {
		r.unregister(p)
		return nil, err
	}
	return p, nil
}

// attach checks what the registered built-in p serves and shows against
// its manifest, and takes its routes, background work and presentation.
func (r *Registry) attach(p *Plugin, b Builtin) error {
	for _, rt := range b.Routes {
		if rt.Handle == nil || rt.Method == "" || rt.Path == "" || rt.Status == 0 {
			return fmt.Errorf("built-in %s: route %s %s is incomplete", b.Manifest.Name, rt.Method, rt.Path)
		}
		if rt.Access == Admin && rt.Scope == 0 {
			return fmt.Errorf("built-in %s: admin route %s %s names no scope", b.Manifest.Name, rt.Method, rt.Path)
		}
		if name, ok := wellKnownName(rt.Path); ok {
			if !slices.Contains(b.Manifest.Scopes, WellKnownPrefix+name) {
				return fmt.Errorf("built-in %s: route %s %s needs the capability %s%s", b.Manifest.Name, rt.Method, rt.Path, WellKnownPrefix, name)
			}
		} else if !ownPath(b.Manifest.Name, rt.Path) && !slices.Contains(b.Manifest.Scopes, ServeAPI) {
			return fmt.Errorf("built-in %s: route %s %s is outside /v1/plugins/%s/: it needs the capability %s",
				b.Manifest.Name, rt.Method, rt.Path, b.Manifest.Name, ServeAPI)
		}
	}
	if b.PresentWallets != nil && !slices.Contains(b.Manifest.Scopes, PresentWallets) {
		return fmt.Errorf("built-in %s presents wallets without declaring %s", b.Manifest.Name, PresentWallets)
	}
	if b.ValueRecords != nil && !slices.Contains(b.Manifest.Scopes, ValueRecords) {
		return fmt.Errorf("built-in %s values records without declaring %s", b.Manifest.Name, ValueRecords)
	}
	if b.TagField != "" && !slices.Contains(b.Manifest.Scopes, PresentInvoices) {
		return fmt.Errorf("built-in %s shows its tags on invoices without declaring %s", b.Manifest.Name, PresentInvoices)
	}
	if err := r.checkWellKnown(p, p.Grant()); err != nil {
		return fmt.Errorf("built-in %s: %w", b.Manifest.Name, err)
	}
	if b.TagField != "" {
		if err := r.showTagsAs(b.Manifest.Name, b.TagField); err != nil {
			return fmt.Errorf("built-in %s: %w", b.Manifest.Name, err)
		}
	}
	p.served = servedRoutes(b.Routes)
	p.mu.Lock()
	p.powers = mergePowers(p.powers, shapePowers(b))
	p.mu.Unlock()
	bs := r.builtins()
	bs.mu.Lock()
	bs.list = append(bs.list, b)
	bs.mu.Unlock()
	return nil
}

// Routes returns the routes of every built-in added with AddBuiltin.
func (r *Registry) Routes() []BuiltinRoute {
	bs := r.builtins()
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var out []BuiltinRoute
	for _, b := range bs.list {
		out = append(out, b.Routes...)
	}
	return out
}

// PresentWallets lets every built-in fill its part of the wallet records.
func (r *Registry) PresentWallets(ctx context.Context, ws []*wallet.Wallet) error {
	bs := r.builtins()
	bs.mu.Lock()
	list := append([]Builtin(nil), bs.list...)
	bs.mu.Unlock()
	for _, b := range list {
		if b.PresentWallets == nil || len(ws) == 0 {
			continue
		}
		if p, err := r.Get(b.Manifest.Name); err != nil || !p.Grant().Has(PresentWallets) {
			return fmt.Errorf("built-in %s presents wallets without the capability %s", b.Manifest.Name, PresentWallets)
		}
		if err := b.PresentWallets(ctx, ws); err != nil {
			return fmt.Errorf("built-in %s: presenting wallets: %w", b.Manifest.Name, err)
		}
	}
	return nil
}

// ValueRecords lets every built-in that values records fill the value of
// the settled ones among invs and ps.
func (r *Registry) ValueRecords(ctx context.Context, invs []*ledger.Invoice, ps []*ledger.Payment) error {
	bs := r.builtins()
	bs.mu.Lock()
	list := append([]Builtin(nil), bs.list...)
	bs.mu.Unlock()
	for _, b := range list {
		if b.ValueRecords == nil {
			continue
		}
		vs, apply := ledger.Valuations(invs, ps)
		if len(vs) == 0 {
			return nil
		}
		if p, err := r.Get(b.Manifest.Name); err != nil || !p.Grant().Has(ValueRecords) {
			return fmt.Errorf("built-in %s values records without the capability %s", b.Manifest.Name, ValueRecords)
		}
		if err := b.ValueRecords(ctx, vs); err != nil {
			return fmt.Errorf("built-in %s: valuing records: %w", b.Manifest.Name, err)
		}
		apply()
	}
	return nil
}

// RunBuiltins runs the Lead of every built-in until ctx ends, each under
// the outbox's lock of its name, with its cursor.
func (r *Registry) RunBuiltins(ctx context.Context, box *outbox.Outbox) {
	bs := r.builtins()
	bs.mu.Lock()
	list := append([]Builtin(nil), bs.list...)
	bs.mu.Unlock()
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, b := range list {
		if b.Lead == nil {
			continue
		}
		p, err := r.Get(b.Manifest.Name)
		if err != nil {
			r.log.ErrorContext(ctx, "a built-in's lead without its plugin", "plugin", b.Manifest.Name, "err", err)
			continue
		}
		name := "builtin:" + b.Manifest.Name
		wg.Go(func() {
			box.Lead(ctx, name, func(ctx context.Context) {
				if !p.Grant().Has(EventsAll) {
					b.Lead(ctx, nil)
					return
				}
				cur := r.builtinCursor(ctx, box, name)
				if cur == nil {
					return
				}
				// Off until the lead consumes (Events.Consume): a lead
				// whose feature is off (Wallet Connect without relays)
				// reads no event, and lags behind none.
				cur.SetRunning(false)
				defer func() {
					if err := cur.Save(context.WithoutCancel(ctx)); err != nil {
						r.log.WarnContext(ctx, "saving a built-in's event cursor", "plugin", b.Manifest.Name, "err", err)
					}
				}()
				b.Lead(ctx, &Events{box: box, cur: cur})
			})
		})
	}
}

// builtinCursor reads a built-in's cursor, trying again while the database
// fails; nil when ctx ends first.
func (r *Registry) builtinCursor(ctx context.Context, box *outbox.Outbox, name string) *outbox.Cursor {
	for wait := time.Second; ; wait = min(2*wait, time.Minute) {
		// From the first event: a built-in's work follows from records
		// (a webhook, a zap) that cannot predate it, and so no event
		// written while its first lead was starting is missed.
		cur, err := box.CursorFrom(ctx, name, 0)
		if err == nil {
			return cur
		}
		if ctx.Err() != nil {
			return nil
		}
		r.log.WarnContext(ctx, "reading a built-in's event cursor", "consumer", name, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// WalletHandler is a route handler over one wallet: the caller's own, or
// "" for any wallet (the admin's route, whose handler reads the wallet
// from the request).
type WalletHandler func(ctx context.Context, req *BuiltinRequest, walletID string) (any, error)

// Mine is fn over the caller's own wallet: the handler of a /v1/me route.
func Mine(fn WalletHandler) func(context.Context, *BuiltinRequest) (any, error) {
	return func(ctx context.Context, req *BuiltinRequest) (any, error) {
		return fn(ctx, req, req.Caller.WalletID)
	}
}

// AnyWallet is fn over any wallet: the handler of the admin's route.
func AnyWallet(fn WalletHandler) func(context.Context, *BuiltinRequest) (any, error) {
	return func(ctx context.Context, req *BuiltinRequest) (any, error) { return fn(ctx, req, "") }
}

// ownPath reports whether path is under /v1/plugins/<name>/, where any
// plugin serves its routes.
func ownPath(name, path string) bool {
	own := "/v1/plugins/" + name
	return path == own || strings.HasPrefix(path, own+"/")
}

// shapePowers are the capabilities that what b serves and shows takes:
// its routes' places, its parts of the records, its cursor over every
// wallet's events.
func shapePowers(b Builtin) []string {
	var out []string
	for _, rt := range b.Routes {
		if name, ok := wellKnownName(rt.Path); ok {
			out = append(out, WellKnownPrefix+name)
		} else if !ownPath(b.Manifest.Name, rt.Path) {
			out = append(out, ServeAPI)
		}
	}
	if b.PresentWallets != nil {
		out = append(out, PresentWallets)
	}
	if b.ValueRecords != nil {
		out = append(out, ValueRecords)
	}
	if b.TagField != "" {
		out = append(out, PresentInvoices)
	}
	return out
}

// mergePowers adds more to powers, once each, sorted.
func mergePowers(powers, more []string) []string {
	for _, m := range more {
		if !slices.Contains(powers, m) {
			powers = append(powers, m)
		}
	}
	slices.Sort(powers)
	return powers
}

// servedRoutes are a built-in's routes as its Info shows them: its route
// table is its declaration (one list, which the HTTP layer mounts), checked
// against the path rules every plugin's routes are.
func servedRoutes(rs []BuiltinRoute) []Route {
	out := make([]Route, 0, len(rs))
	for _, rt := range rs {
		r := Route{Method: rt.Method, Path: rt.Path, Public: rt.Access == Public, Admin: rt.Access == Admin}
		if rt.Scope != 0 {
			r.Scope = rt.Scope.String()
		}
		out = append(out, r)
	}
	return out
}
