package host

import (
	"slices"
	"strings"
)

// A capability is a named power of a plugin beyond the twelve permission
// scopes: what it may reach outside its own wallet and tables. A manifest
// declares each capability it uses among its scopes; the host checks the
// grant at each call, for a built-in exactly as for a WebAssembly plugin.
// Some are built-in only: a WebAssembly manifest that declares one is
// refused at install, because holding it would let code in the sandbox
// act outside it (mint money, see into every wallet's payment path).

// The capabilities without an argument.
const (
	// EventsAll reads the events of every wallet, not only the bound one's.
	EventsAll = "events:all"
	// ReceiveAny makes invoices into any wallet (never pays from one).
	ReceiveAny = "wallet:receive-any"
	// ReadAny reads any wallet's invoices (what a payer is told of an
	// invoice the plugin received into that wallet).
	ReadAny = "wallet:read-any"
	// PresentWallets adds the plugin's part to every wallet record the
	// API shows (the Lightning Address of each).
	PresentWallets = "wallet:present"
	// ValueRecords values the settled invoice and payment records the API
	// shows in their wallet's currency, at the rate when they settled.
	ValueRecords = "record:value"
	// PresentInvoices shows the plugin's invoice tags on every invoice
	// record the API shows, under a field of its own (Builtin.TagField).
	PresentInvoices = "invoice:present"
	// LedgerResolver joins the payment path: the ledger asks the plugin
	// to resolve payment inputs that are no BOLT11 invoice.
	LedgerResolver = "ledger:resolver"
	// LedgerDeposit credits on-chain deposits and settles on-chain spends
	// in the ledger from what the node's chain wallet reports.
	LedgerDeposit = "ledger:deposit"
	// HTTPAny sends outbound HTTP to any public host (the outbound guard
	// still refuses private addresses unless the operator allows them).
	HTTPAny = "http:any"
	// NodeBackend is the Lightning node the ledger runs on.
	NodeBackend = "node:backend"
	// CallerAct has the plugin's host calls, while it serves an
	// authenticated route of its own, act for that route's caller: on the
	// caller's wallet, within the caller's scopes and the plugin's grant
	// (ABI hearth_v2).
	CallerAct = "caller:act"
	// CredentialDelegate keeps credentials its callers give it (scoped,
	// budgeted, revocable) and acts with them later: a per-user feature
	// that runs without the user (a wallet connection).
	CredentialDelegate = "credential:delegate"
	// WalletCreate makes a wallet for a new user while the plugin serves a
	// route for the admin (acting for that caller, within write:wallet): a
	// sub-wallet made in one step with what uses it.
	WalletCreate = "wallet:create"
	// ServeAPI serves routes among Hearth's API, outside the plugin's own
	// /v1/plugins/<name>/ (a built-in's /v1/me/… routes).
	ServeAPI = "api:serve"
	// NodeInfo reads what the node says of itself (its network, its
	// alias, its key): a built-in's environment (Env.NodeInfo).
	NodeInfo = "node:info"
	// RatesRead reads the instance's exchange rates (Caller.ExchangeRate,
	// the ABI's rate).
	RatesRead = "rates:read"
	// LedgerPrices gives the ledger its exchange rates: the amounts users
	// give in a currency are converted at them.
	LedgerPrices = "ledger:prices"
	// NodeChain reads the node's on-chain wallet (new addresses, its
	// transactions, its chain's stream), without spending from it: a
	// built-in's environment (Env.Chain).
	NodeChain = "node:chain"
)

// CapabilityInfo describes a capability for the admin and the README.
type CapabilityInfo struct {
	// Name is the capability, or its prefix followed by <arg>.
	Name        string `json:"name"`
	Description string `json:"description"`
	// BuiltinOnly capabilities are never granted to a WebAssembly plugin;
	// Why says what they would let a sandbox do.
	BuiltinOnly bool   `json:"builtin_only"`
	Why         string `json:"why,omitempty"`
}

// Capabilities is the catalogue, in the order docs/plugins.md's table lists it.
var Capabilities = []CapabilityInfo{
	{Name: EventsAll, Description: "Read the events of every wallet, not only the bound wallet's (a consumer that notifies every user)."},
	{Name: CallerAct, Description: "Act for the caller of its authenticated routes: the caller's wallet, within the caller's scopes and the grant."},
	{Name: CredentialDelegate, Description: "Keep credentials its callers give it (scoped within theirs, budgeted, revocable) and act with them later: per-user features that run without the user."},
	{Name: WalletCreate, Description: "Make a wallet for a new user while serving one of its routes for the admin (a sub-wallet of its own for an app)."},
	{Name: ReceiveAny, Description: "Make invoices into any wallet (a Lightning Address callback, a tip jar per user). Never pays."},
	{Name: ReadAny, Description: "Read any wallet's invoices (LUD-21's verify of an invoice the plugin made)."},
	{Name: RatesRead, Description: "Read the instance's exchange rates: sat per unit of a currency (a point of sale's prices)."},
	{Name: InvoiceHold, Description: "Make hold invoices into its wallet and settle or cancel them (an escrow, a pay-to-unlock)."},
	{Name: KeysendRead, Description: "Read any wallet's keysend address: the node's key and the wallet's keysend id for record 696969 (a Lightning Address server's /.well-known/keysend)."},
	{Name: OutboundPrefix + "<host>", Description: "Send HTTP requests to one host."},
	{Name: HTTPAny, Description: "Send HTTP requests to any public host (payment servers, relays, endpoints its users name)."},
	{Name: WellKnownPrefix + "<name>", Description: "Serve /.well-known/<name>/ at the server's root; one enabled plugin per name."},
	{Name: abiSign, Description: "Sign events with the instance's key (the signer service, abinames.go)."},
	{Name: ProvidesPrefix + "<service>", Description: "Offer a service by name to the plugins that use it.", BuiltinOnly: true,
		Why: "a service is Go code others call in process: the sandbox offers none"},
	{Name: UsesPrefix + "<service>", Description: "Use the service of that name, when a plugin provides it.", BuiltinOnly: true,
		Why: "services are Go values: the sandbox reaches them through the ABI's host functions"},
	{Name: PresentWallets, Description: "Add its part to the wallet records the API shows.", BuiltinOnly: true,
		Why: "it runs inside every wallet listing of every caller: a sandboxed plugin's latency and faults would become the API's"},
	{Name: ValueRecords, Description: "Value the settled invoice and payment records the API shows in their wallet's currency.", BuiltinOnly: true,
		Why: "it runs inside every record listing of every caller: a sandboxed plugin's latency and faults would become the API's"},
	{Name: PresentInvoices, Description: "Show its invoices' tags on the invoice records under a field of its own.", BuiltinOnly: true,
		Why: "it changes the record every client reads: a plugin could add a field clients take for Hearth's own"},
	{Name: LedgerResolver, Description: "Resolve payment inputs that are no BOLT11 invoice (addresses, links).", BuiltinOnly: true,
		Why: "it sits in every payment's path and decides where money goes: a plugin holding it could redirect any payment"},
	{Name: LedgerDeposit, Description: "Credit on-chain deposits and settle on-chain spends from the node's chain wallet.", BuiltinOnly: true,
		Why: "it creates balances from chain observations: a plugin holding it could credit money that never arrived"},
	{Name: LedgerPrices, Description: "Give the ledger its exchange rates, at which the amounts users give in a currency are converted.", BuiltinOnly: true,
		Why: "it sets what every fiat amount is worth in bitcoin: a plugin holding it could make every such invoice ask too little"},
	{Name: NodeBackend, Description: "Be the Lightning node the ledger runs on.", BuiltinOnly: true,
		Why: "the node is the ledger's source of truth for every external payment"},
	{Name: ServeAPI, Description: "Serve routes among Hearth's API (/v1/me/…), outside its own /v1/plugins/<name>/.", BuiltinOnly: true,
		Why: "its routes would stand among Hearth's own, where clients trust what answers for Hearth"},
	{Name: NodeInfo, Description: "Read what the node says of itself: its network, alias and key.", BuiltinOnly: true,
		Why: "a built-in's environment hands the node over; the sandbox has none"},
	{Name: NodeChain, Description: "Read the node's on-chain wallet: new addresses, its transactions, the chain's stream (never spend).", BuiltinOnly: true,
		Why: "a built-in's environment hands the node over; the sandbox has none"},
}

// simpleCapabilities are the capabilities without an argument.
var simpleCapabilities = []string{EventsAll, CallerAct, CredentialDelegate, WalletCreate, ReceiveAny, ReadAny, PresentWallets, ValueRecords, PresentInvoices, LedgerResolver, LedgerDeposit, LedgerPrices, RatesRead, InvoiceHold, KeysendRead, HTTPAny, NodeBackend, ServeAPI, abiSign, NodeInfo, NodeChain}

// builtinOnly reports whether capability name is never granted to a
// WebAssembly plugin.
func builtinOnly(name string) bool {
	if isServiceCapability(name) {
		return true
	}
	for _, c := range Capabilities {
		if c.Name == name {
			return c.BuiltinOnly
		}
	}
	return false
}

// isCapability reports whether name is a capability (not a permission
// scope), with or without an argument.
func isCapability(name string) bool {
	return slices.Contains(simpleCapabilities, name) || isServiceCapability(name) ||
		strings.HasPrefix(name, OutboundPrefix) || strings.HasPrefix(name, WellKnownPrefix)
}

// Has reports whether the grant holds the capability name (one without an
// argument, or a service's).
func (g Grant) Has(name string) bool {
	return slices.Contains(g.Caps, name)
}

// checkSandboxable refuses, for a WebAssembly plugin, a manifest that
// declares a built-in-only capability.
func (m *Manifest) checkSandboxable() error {
	for _, s := range m.Scopes {
		if builtinOnly(s) {
			return ErrInvalid.Reasonf("capability %s is built-in only: %s", s, whyOf(s))
		}
	}
	return nil
}

func whyOf(name string) string {
	for _, prefix := range []string{ProvidesPrefix, UsesPrefix} {
		if strings.HasPrefix(name, prefix) && isServiceCapability(name) {
			name = prefix + "<service>"
		}
	}
	for _, c := range Capabilities {
		if c.Name == name {
			return c.Why
		}
	}
	return ""
}

// DeclaredCapabilities lists the capabilities among the manifest's scopes.
func (m *Manifest) DeclaredCapabilities() []string {
	out := []string{}
	for _, s := range m.Scopes {
		if isCapability(s) {
			out = append(out, s)
		}
	}
	return out
}

// CapabilityCalls are, for the capabilities the host checks when a plugin
// calls it (rather than when it is built or attached), the calls that need
// each: the Caller's methods, and Events.Consume for a built-in's cursor
// over every wallet's events. A built-in's test reads its source against
// them: a capability declared and never called is a power held for
// nothing.
var CapabilityCalls = map[string][]string{
	EventsAll:          {"Consume"},
	CallerAct:          {"ActFor"},
	CredentialDelegate: {"Delegate", "Delegation", "RevokeDelegation", "ChangeDelegation", "ActAs"},
	WalletCreate:       {"CreateWallet"},
	ReceiveAny:         {"Receive"},
	ReadAny:            {"ReceivedInvoice"},
	LedgerResolver:     {"AddResolver"},
	LedgerDeposit:      {"Deposit", "PendingDeposits", "ReconcileSpends"},
	LedgerPrices:       {"SetPrices"},
	RatesRead:          {"ExchangeRate"},
	InvoiceHold:        {"CreateHoldInvoice", "SettleHold", "CancelHold"},
	KeysendRead:        {"KeysendAddress"},
	abiSign:            {"CallABIService"},
}
