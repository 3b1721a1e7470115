package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// Ledger is what the host API needs of the ledger.
type Ledger interface {
	CreateInvoice(ctx context.Context, walletID string, req ledger.NewInvoice) (*ledger.Invoice, error)
	Invoice(ctx context.Context, walletID, id string) (*ledger.Invoice, error)
	Invoices(ctx context.Context, f ledger.Filter) ([]ledger.Invoice, error)
	Pay(ctx context.Context, walletID string, req ledger.PayRequest) (*ledger.Payment, bool, error)
	Payments(ctx context.Context, f ledger.Filter) ([]ledger.Payment, error)
}

// Wallets reads wallets.
type Wallets interface {
	Get(ctx context.Context, id string) (*wallet.Wallet, error)
	Create(ctx context.Context, userID string, label *string) (*wallet.Wallet, error)
}

// CallError is the host refusing a call; the plugin sees it as JSON.
type CallError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *CallError) Error() string { return e.Code + ": " + e.Message }

// ErrPermission is the code of a call beyond the grant.
const ErrPermission = "permission_denied"

// callFaults are the faults a built-in's route answers for the host API's
// call errors, by code.
var callFaults = map[string]fault.Kind{ErrPermission: fault.Forbidden, "invalid": fault.Invalid, "not_found": fault.NotFound,
	"unavailable": fault.Unavailable, "limit": fault.TooManyRequests}

// RouteError is err as a built-in's route answers it: a *CallError of the
// host API becomes the fault of its code (permission_denied 403, invalid
// 400, not_found 404, limit 429, unavailable 503), any other error stays
// as it is.
func RouteError(err error) error {
	var ce *CallError
	if !errors.As(err, &ce) {
		return err
	}
	if kind, ok := callFaults[ce.Code]; ok {
		return fault.New(kind, ce.Code, ce.Message)
	}
	return err
}

func callErrorf(code, format string, args ...any) *CallError {
	return &CallError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// need is what a host call requires of the grant.
type need struct {
	scope  auth.Scope // 0: none
	host   string     // outbound HTTP to this host
	wallet bool       // acts on the plugin's wallet
	what   string     // the call, for the log
}

// API is the one host API of every plugin, WebAssembly or built-in.
type API struct {
	ledger  Ledger
	wallets Wallets
	kv      *kvStore
	out     *Outbound
	// service is the registry's provided service of a name, asked at
	// each call (service.go).
	service func(name string) (Service, bool)
	// tagField is the field a built-in's invoices show its tags under
	// (Builtin.TagField), or "".
	tagField func(plugin string) string
	creds    Credentials
	// metrics keeps the plugins' own series (the metric call).
	metrics MetricSink
	db      *store.DB
	sender  *Sender
	// present is the registry's PresentWallets: what the built-ins add to
	// a wallet record (its Lightning Address).
	present func(ctx context.Context, ws []*wallet.Wallet) error
	// outboxHead is the outbox's head, where a stream opened starts.
	outboxHead func() int64
	// eventTypes is the registry's EventTypes.
	eventTypes func() []string
	// eventsAdded tells the outbox that a plugin's events committed.
	eventsAdded func()
	log         *slog.Logger
}

// APIDeps build the host API.
type APIDeps struct {
	DB       *store.DB
	Ledger   Ledger
	Wallets  Wallets
	Outbound *Outbound
	// Credentials keeps the plugins' delegations; nil refuses them.
	Credentials Credentials
	// KVKeys is the most keys each plugin keeps; 0 for DefaultKVKeys.
	KVKeys int
	// Metrics keeps the plugins' own series; nil counts nothing.
	Metrics MetricSink
	// Sender tunes the durable sender, SendMetrics counts its attempts.
	Sender      SenderConfig
	SendMetrics *metrics.Sends
	// EventsAdded, when set, is called after a transaction in which a
	// plugin added events to the outbox committed (outbox.Outbox.Kick).
	EventsAdded func()
	// OutboxHead, when set, is the outbox's head (outbox.Outbox.Head):
	// where an event stream opened on PostgreSQL starts.
	OutboxHead func() int64
	Log        *slog.Logger
}

// NewAPI returns the host API.
func NewAPI(d APIDeps) *API {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	d.Sender.fill()
	sender := &Sender{store: sendStore{db: d.DB}, out: d.Outbound, cfg: d.Sender, metrics: d.SendMetrics, log: d.Log,
		wake: make(chan struct{}, 1), streams: streamStore{db: d.DB}, streamWake: make(chan struct{}, 1)}
	return &API{db: d.DB, sender: sender, ledger: d.Ledger, wallets: d.Wallets, kv: &kvStore{db: d.DB, maxKeys: d.KVKeys}, metrics: d.Metrics, out: d.Outbound, creds: d.Credentials,
		eventsAdded: d.EventsAdded, outboxHead: d.OutboxHead, log: d.Log}
}

// Sender returns the host's durable sender: app runs it (Sender.Run),
// built-ins queue through it.
func (a *API) Sender() *Sender { return a.sender }

// allow is the one place where a plugin's call is checked against its
// grant. A refusal is logged (server log and the plugin's recent logs) and
// returned to the plugin as a permission error.
// walletID is the wallet the call would act on.
func (a *API) allow(ctx context.Context, p *Plugin, n need, walletID string) error {
	g := p.grant.Load()
	var reason string
	switch {
	case p.State() != Enabled:
		reason = "the plugin is not enabled"
	case n.scope != 0 && !g.Scopes.Has(n.scope):
		reason = "missing scope " + n.scope.String()
	case n.host != "" && !g.allowsHost(n.host):
		reason = "outbound HTTP to " + n.host + " is not granted (declare and be granted http:outbound:" + n.host + ")"
	case n.wallet && walletID == "":
		reason = "no wallet is bound to the plugin"
	default:
		return nil
	}
	return a.refuse(ctx, p, n.what, reason)
}

// refuse logs and returns a permission error of call what.
func (a *API) refuse(ctx context.Context, p *Plugin, what, reason string) error {
	a.log.WarnContext(ctx, "plugin call refused", "plugin", p.Name, "call", what, "reason", reason)
	p.Log("warn", "permission denied: "+what+": "+reason)
	return callErrorf(ErrPermission, "%s: %s", what, reason)
}

// For returns the host API bound to plugin p: what a built-in plugin calls
// from Go, and what the WebAssembly ABI dispatches to.
func (a *API) For(p *Plugin) *Caller { return &Caller{api: a, p: p} }

// Caller is the host API bound to one plugin. Every method passes API.allow.
type Caller struct {
	api *API
	p   *Plugin
	// caller, when set, is who the calls act for: the caller of the route
	// the plugin serves (ActFor, which needs caller:act), or one of its
	// delegations (ActAs, under credential:delegate).
	caller    *Principal
	delegated bool
}

// Plugin returns the plugin the caller acts for.
func (c *Caller) Plugin() *Plugin { return c.p }

// allow checks n against the grant, and against the request's caller when
// the plugin acts for one: acting for a route's caller at all needs
// caller:act.
func (c *Caller) allow(ctx context.Context, n need) error {
	if err := c.api.allow(ctx, c.p, n, c.walletID()); err != nil {
		return err
	}
	if c.caller != nil && !c.delegated && !c.p.Grant().Has(CallerAct) {
		return c.api.refuse(ctx, c.p, n.what, "acting for the route's caller needs the capability "+CallerAct)
	}
	if c.caller != nil && n.scope != 0 && !c.caller.Scopes.Has(n.scope) {
		return c.api.refuse(ctx, c.p, n.what, "the caller lacks scope "+n.scope.String())
	}
	return nil
}

// walletID is the wallet the calls act on: the request's caller's, else
// the plugin's bound wallet.
func (c *Caller) walletID() string {
	if c.caller != nil {
		return c.caller.WalletID
	}
	return c.p.Grant().WalletID
}

// Ping does nothing; it measures the cost of a host call.
func (c *Caller) Ping(ctx context.Context) error { return c.allow(ctx, need{what: "ping"}) }

// Wallet returns the plugin's wallet with its balance and what the
// built-ins add to wallet records, its Lightning Address (read:wallet).
func (c *Caller) Wallet(ctx context.Context) (*wallet.Wallet, error) {
	if err := c.allow(ctx, need{scope: auth.ReadWallet, wallet: true, what: "wallet"}); err != nil {
		return nil, err
	}
	w, err := c.api.wallets.Get(ctx, c.walletID())
	if err != nil || c.api.present == nil {
		return w, err
	}
	if err := c.api.present(ctx, []*wallet.Wallet{w}); err != nil {
		c.api.log.WarnContext(ctx, "presenting a plugin's wallet", "plugin", c.p.Name, "err", err)
	}
	return w, nil
}

// CreateInvoice issues an invoice into the plugin's wallet (write:transaction).
func (c *Caller) CreateInvoice(ctx context.Context, req ledger.NewInvoice) (*ledger.Invoice, error) {
	if err := c.allow(ctx, need{scope: auth.WriteTransaction, wallet: true, what: "create_invoice"}); err != nil {
		return nil, err
	}
	return c.api.ledger.CreateInvoice(ctx, c.walletID(), c.tagged(req))
}

// tagged is req with its tag, if any, the plugin's own: a plugin tags
// invoices as itself, whatever its request says.
func (c *Caller) tagged(req ledger.NewInvoice) ledger.NewInvoice {
	if req.Tag != nil {
		req.Tag = &ledger.Tag{Plugin: c.p.Name, Value: req.Tag.Value}
		if c.api.tagField != nil && c.p.Grant().Has(PresentInvoices) {
			req.Tag.Field = c.api.tagField(c.p.Name)
		}
	}
	return req
}

// Pay pays from the plugin's wallet (write:transaction). The idempotency
// key is namespaced by the plugin.
func (c *Caller) Pay(ctx context.Context, req ledger.PayRequest) (*ledger.Payment, error) {
	if err := c.allow(ctx, need{scope: auth.WriteTransaction, wallet: true, what: "pay"}); err != nil {
		return nil, err
	}
	if req.IdempotencyKey != "" {
		req.IdempotencyKey = "plugin:" + c.p.Name + ":" + req.IdempotencyKey
	}
	if c.caller != nil {
		req.KeyID, req.Budget = c.caller.KeyID, c.caller.Budget
	}
	p, _, err := c.api.ledger.Pay(ctx, c.walletID(), req)
	return p, err
}

// Receive issues an invoice into walletID, any wallet: the receive-only
// power of a plugin granted write:transaction and wallet:receive-any (the
// LNURL-pay callback makes invoices in the address owner's wallet). It
// never pays: Pay acts on the bound wallet or the route's caller's only.
func (c *Caller) Receive(ctx context.Context, walletID string, req ledger.NewInvoice) (*ledger.Invoice, error) {
	if err := c.allow(ctx, need{scope: auth.WriteTransaction, what: "receive"}); err != nil {
		return nil, err
	}
	if err := c.allowCap(ctx, ReceiveAny, "receive"); err != nil {
		return nil, err
	}
	return c.api.ledger.CreateInvoice(ctx, walletID, c.tagged(req))
}

// ReceivedInvoice reads invoice id of walletID, any wallet: what a
// plugin that received into it (Receive) tells the payer (LUD-21's
// verify). read:transaction and wallet:read-any.
func (c *Caller) ReceivedInvoice(ctx context.Context, walletID, id string) (*ledger.Invoice, error) {
	if err := c.allow(ctx, need{scope: auth.ReadTransaction, what: "received_invoice"}); err != nil {
		return nil, err
	}
	if err := c.allowCap(ctx, ReadAny, "received_invoice"); err != nil {
		return nil, err
	}
	return c.api.ledger.Invoice(ctx, walletID, id)
}

// Invoices lists the wallet's invoices (read:transaction).
func (c *Caller) Invoices(ctx context.Context, f ledger.Filter) ([]ledger.Invoice, error) {
	if err := c.allow(ctx, need{scope: auth.ReadTransaction, wallet: true, what: "invoices"}); err != nil {
		return nil, err
	}
	f.WalletID = c.walletID()
	return c.api.ledger.Invoices(ctx, f)
}

// Payments lists the wallet's payments (read:transaction).
func (c *Caller) Payments(ctx context.Context, f ledger.Filter) ([]ledger.Payment, error) {
	if err := c.allow(ctx, need{scope: auth.ReadTransaction, wallet: true, what: "payments"}); err != nil {
		return nil, err
	}
	f.WalletID = c.walletID()
	return c.api.ledger.Payments(ctx, f)
}

// KVGet reads key from the plugin's store.
func (c *Caller) KVGet(ctx context.Context, key string) ([]byte, bool, error) {
	if err := c.allow(ctx, need{what: "kv_get"}); err != nil {
		return nil, false, err
	}
	return c.api.kv.get(ctx, c.p.Name, key)
}

// KVSet writes key in the plugin's store.
func (c *Caller) KVSet(ctx context.Context, key string, value []byte) error {
	if err := c.allow(ctx, need{what: "kv_set"}); err != nil {
		return err
	}
	return c.api.kv.set(ctx, c.p.Name, key, value)
}

// KVDelete removes key from the plugin's store.
func (c *Caller) KVDelete(ctx context.Context, key string) error {
	if err := c.allow(ctx, need{what: "kv_delete"}); err != nil {
		return err
	}
	return c.api.kv.delete(ctx, c.p.Name, key)
}

// KVList lists up to limit (at most MaxKVList; 0 for that) of the keys
// with prefix in the plugin's store, in order, after the key after ("" for
// the first): a page; the next starts after its last key.
func (c *Caller) KVList(ctx context.Context, prefix, after string, limit int) ([]string, error) {
	if err := c.allow(ctx, need{what: "kv_list"}); err != nil {
		return nil, err
	}
	return c.api.kv.list(ctx, c.p.Name, prefix, after, limit)
}

// HTTP sends an outbound request to a granted host.
func (c *Caller) HTTP(ctx context.Context, req OutboundRequest) (*OutboundResponse, error) {
	host, err := requestHost(req.URL)
	if err != nil {
		return nil, callErrorf("invalid", "%v", err)
	}
	if err := c.allow(ctx, need{host: host, what: "http"}); err != nil {
		return nil, err
	}
	if c.api.out == nil {
		return nil, callErrorf("unavailable", "outbound HTTP is not configured")
	}
	g := c.p.Grant()
	return c.api.out.Do(ctx, g.allowsHost, req)
}

// Log writes a line to the plugin's log.
func (c *Caller) Log(ctx context.Context, level, msg string) error {
	if err := c.allow(ctx, need{what: "log"}); err != nil {
		return err
	}
	lvl := slog.LevelInfo
	switch level {
	case "debug":
		lvl = slog.LevelDebug
	case "warn":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	default:
		level = "info"
	}
	if n := c.p.logsDropped.Swap(0); n > 0 {
		note := fmt.Sprintf("%d log lines dropped: at most %d a second, in bursts of %d", n, LogRate, LogBurst)
		c.p.Log("warn", note)
		c.api.log.WarnContext(ctx, note, "plugin", c.p.Name)
	}
	c.p.Log(level, msg)
	c.api.log.Log(ctx, lvl, msg, "plugin", c.p.Name)
	return nil
}

// AdmitLog takes one of a WebAssembly plugin's log tokens (LogRate,
// LogBurst) before its log call is dispatched: nil, or the refusal of a
// line over the rate, counted in the next line let through. The runtime
// asks it on the guest's thread, before it hands the call to an ordinary
// goroutine, so that refusing a flood costs the plugin little.
func AdmitLog(p *Plugin) *CallError {
	if p.logLimit.Allow() {
		return nil
	}
	p.logsDropped.Add(1)
	return callErrorf("limit", "at most %d log lines a second, in bursts of %d", LogRate, LogBurst)
}

// Config returns the plugin's configuration (JSON).
func (c *Caller) Config(ctx context.Context) ([]byte, error) {
	if err := c.allow(ctx, need{what: "config"}); err != nil {
		return nil, err
	}
	return c.p.Config(), nil
}

// toCallError turns an error of core into what the plugin sees: a fault's
// code and reason, or a generic internal error whose detail is only logged.
func (a *API) toCallError(ctx context.Context, p *Plugin, op string, err error) *CallError {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce
	}
	if f, ok := fault.As(err); ok {
		return &CallError{Code: f.Code, Message: f.Reason}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return callErrorf("timeout", "%s: the call ran out of time", op)
	}
	a.log.ErrorContext(ctx, "plugin host call failed", "plugin", p.Name, "call", op, "err", err)
	return callErrorf("internal", "%s failed", op)
}
