package api

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// access says who may call a route.
type access int

const (
	public access = iota // no credential
	authed               // any authenticated principal (plus scope, if set)
	admin                // the admin principal (plus scope, if set)
)

// route is one row of the route table, which builds both the router and the
// OpenAPI document.
type route struct {
	method, path string
	access       access
	scope        auth.Scope
	limited      bool // rate limited per client address
	tag, summary string
	note         string // more of what it does, for the document's description
	body         any    // request body type, for the document; nil when none
	resp         any    // response body type; nil for 204
	status       int    // success status
	query        []string
	stream       bool // the answer is server-sent events of resp
	file         bool // the answer is a file to download: CSV, or JSON Lines of resp (export.go)
	handler      bunrouter.HandlerFunc
}

// configNote says how PUT /v1/plugins/{name}/config treats each key.
const configNote = "The body is the whole configuration: a key left out is unset (its default applies), " +
	"except a secret key (secret in the schema), which keeps its stored value when left out, so changing other keys " +
	"never needs the secrets again. A secret is always shown as \"********\"; sending that back is refused (422): leave the key out to keep it. " +
	"A new value replaces a secret. null unsets any key, and \"\" a string key (an empty string is never stored); " +
	"a required key cannot be unset (422)."

// holdNote says how a hold invoice lives.
const holdNote = "Paid, a hold invoice turns Accepted (event invoice.accepted): the node holds the payment, or a payer of " +
	"this instance has its amount reserved and its payment Pending. Settle it with the preimage (Settled, the money " +
	"moves) or cancel it (Cancelled, the payer's money goes back). One left unsettled past settle_by, which comes " +
	"18 blocks before its HTLCs expire (settle_deadline, a block height), is cancelled by Hearth."

// listQuery are a list's page parameters: by offset, or by cursor from its
// Link header (cursor.go).
var listQuery = host.ListQuery

func (s *Server) routeTable() []*route {
	return append([]*route{
		// System (public).
		{method: "GET", path: "/v1/system/setup", tag: "system", summary: "First-run flags; how people sign in (the dashboard's OIDC client) and the Lightning Address domain",
			resp: setupResponse{}, status: 200, handler: s.getSetup},
		{method: "POST", path: "/v1/system/mark-welcome-complete", tag: "system", summary: "Mark the welcome step done (idempotent)",
			status: 204, handler: s.markWelcomeComplete},
		{method: "GET", path: "/v1/system/health", tag: "system", summary: "Health of the database and the node; 503 when unhealthy",
			resp: healthResponse{}, status: 200, handler: s.health},
		{method: "GET", path: "/v1/system/ready", tag: "system", summary: "204 once migrations and node sync are done",
			status: 204, handler: s.ready},
		{method: "GET", path: "/v1/system/version", tag: "system", summary: "Version and build time",
			resp: versionResponse{}, status: 200, handler: s.getVersion},
		{method: "GET", path: "/v1/openapi.json", tag: "system", summary: "This OpenAPI document",
			resp: map[string]any{}, status: 200, handler: s.openAPI},
		{method: "GET", path: "/docs", tag: "system", summary: "A page that renders the OpenAPI document",
			status: 200, handler: s.docs},

		// Auth.
		{method: "POST", path: "/v1/auth/sign-up", tag: "auth", summary: "Create the admin password, once (JWT provider only)", limited: true,
			body: passwordRequest{}, resp: tokenResponse{}, status: 200, handler: s.signUp},
		{method: "POST", path: "/v1/auth/sign-in", tag: "auth", summary: "Sign in as the admin; the token carries every scope", limited: true,
			body: passwordRequest{}, resp: tokenResponse{}, status: 200, handler: s.signIn},
		{method: "POST", path: "/v1/auth/change-password", access: admin, tag: "auth", summary: "Change the admin password; earlier tokens stop working", limited: true,
			body: changePasswordRequest{}, status: 204, handler: s.changePassword},

		// The caller's own wallet.
		{method: "GET", path: "/v1/me", access: authed, tag: "wallet", summary: "The caller's wallet",
			resp: wallet.Wallet{}, status: 200, handler: s.getMe},
		{method: "GET", path: "/v1/me/balance", access: authed, scope: auth.ReadWallet, tag: "wallet", summary: "The caller's balance",
			query: []string{"currency"}, resp: balanceResponse{}, status: 200, handler: s.getBalance},
		{method: "GET", path: "/v1/me/keysend", access: authed, scope: auth.ReadWallet, tag: "wallet", summary: "Where the caller's wallet receives keysend payments: the node's key and, for custom record 696969, the wallet's keysend id",
			note: "A keysend to the node whose record 696969 is custom_value credits this wallet (one that names no wallet credits the operator's). The id is drawn on the first ask and stays. 422 no_external_node on the embedded node, which no other node reaches.",
			resp: ledger.KeysendAddress{}, status: 200, handler: s.getMyKeysend},

		// The caller's invoices and payments.
		{method: "POST", path: "/v1/me/invoices", access: authed, scope: auth.WriteTransaction, tag: "invoices", summary: "Create a BOLT11 invoice into the caller's wallet",
			body: invoiceRequest{}, resp: ledger.Invoice{}, status: 201, handler: s.createMyInvoice},
		{method: "GET", path: "/v1/me/invoices", access: authed, scope: auth.ReadTransaction, tag: "invoices", summary: "List the caller's invoices",
			query: append([]string{"status", "ledger"}, listQuery...), resp: []ledger.Invoice{}, status: 200, handler: s.listMyInvoices},
		{method: "GET", path: "/v1/me/invoices/export", access: authed, scope: auth.ReadTransaction, tag: "invoices", summary: "Export the caller's invoices: CSV or JSON Lines, streamed",
			note: exportNote, query: exportQuery, resp: ledger.Invoice{}, file: true, status: 200, handler: s.exportMyInvoices},
		{method: "GET", path: "/v1/me/invoices/:id", access: authed, scope: auth.ReadTransaction, tag: "invoices", summary: "Read one of the caller's invoices",
			resp: ledger.Invoice{}, status: 200, handler: s.getMyInvoice},
		{method: "POST", path: "/v1/me/hold-invoices", access: authed, scope: auth.WriteTransaction, tag: "invoices", summary: "Create a hold invoice for a payment hash whose preimage the caller keeps",
			note: holdNote, body: holdInvoiceRequest{}, resp: ledger.Invoice{}, status: 201, handler: s.createMyHoldInvoice},
		{method: "POST", path: "/v1/me/invoices/:id/settle", access: authed, scope: auth.WriteTransaction, tag: "invoices", summary: "Settle an Accepted hold invoice with its preimage",
			body: settleRequest{}, resp: ledger.Invoice{}, status: 200, handler: s.settleMyInvoice},
		{method: "POST", path: "/v1/me/invoices/:id/cancel", access: authed, scope: auth.WriteTransaction, tag: "invoices", summary: "Cancel a hold invoice: the payer's money goes back",
			resp: ledger.Invoice{}, status: 200, handler: s.cancelMyInvoice},
		{method: "POST", path: "/v1/me/payments", access: authed, scope: auth.WriteTransaction, tag: "payments", summary: "Pay from the caller's wallet (Idempotency-Key header honoured)",
			body: paymentRequest{}, resp: ledger.Payment{}, status: 201, handler: s.payMine},
		{method: "POST", path: "/v1/me/payments/fee-estimate", access: authed, scope: auth.ReadTransaction, tag: "payments", summary: "What a payment would cost",
			body: paymentRequest{}, resp: ledger.FeeEstimate{}, status: 200, handler: s.estimateMyFee},
		{method: "GET", path: "/v1/me/payments", access: authed, scope: auth.ReadTransaction, tag: "payments", summary: "List the caller's payments",
			query: append([]string{"status", "ledger", "api_key_id"}, listQuery...), resp: []ledger.Payment{}, status: 200, handler: s.listMyPayments},
		{method: "GET", path: "/v1/me/payments/export", access: authed, scope: auth.ReadTransaction, tag: "payments", summary: "Export the caller's payments: CSV or JSON Lines, streamed",
			note: exportNote, query: append([]string{"api_key_id"}, exportQuery...), resp: ledger.Payment{}, file: true, status: 200, handler: s.exportMyPayments},
		{method: "GET", path: "/v1/me/payments/:id", access: authed, scope: auth.ReadTransaction, tag: "payments", summary: "Read one of the caller's payments",
			resp: ledger.Payment{}, status: 200, handler: s.getMyPayment},

		// Events, live.
		{method: "GET", path: "/v1/me/events", access: authed, scope: auth.ReadTransaction, tag: "events", summary: "Server-sent events of the caller's wallet (id: = event id); resumes after the Last-Event-ID header or last_event_id (an id this server never gave out gets an event `reset` carrying the newest id: read the records again); heartbeats every 15 s",
			query: []string{"last_event_id"}, resp: outbox.Event{}, stream: true, status: 200, handler: s.myEvents},
		{method: "GET", path: "/v1/events", access: admin, scope: auth.ReadTransaction, tag: "admin", summary: "Server-sent events of every wallet, or of wallet_id; resumable like /v1/me/events",
			query: []string{"wallet_id", "last_event_id"}, resp: outbox.Event{}, stream: true, status: 200, handler: s.allEvents},

		// The caller's API keys.
		{method: "POST", path: "/v1/me/api-keys", access: authed, scope: auth.WriteAPIKey, tag: "api-keys", summary: "Create an API key; the key is returned once",
			body: apiKeyRequest{}, resp: auth.APIKey{}, status: 201, handler: s.createMyKey},
		{method: "GET", path: "/v1/me/api-keys", access: authed, scope: auth.ReadAPIKey, tag: "api-keys", summary: "List the caller's API keys",
			query: listQuery, resp: []auth.APIKey{}, status: 200, handler: s.listMyKeys},
		{method: "GET", path: "/v1/me/api-keys/:id", access: authed, scope: auth.ReadAPIKey, tag: "api-keys", summary: "Read one of the caller's API keys",
			resp: auth.APIKey{}, status: 200, handler: s.getMyKey},
		{method: "PATCH", path: "/v1/me/api-keys/:id", access: authed, scope: auth.WriteAPIKey, tag: "api-keys", summary: "Change one of the caller's API keys: name, budget (null removes it; what the period used stays used), expires_at (null removes it)",
			body: apiKeyChange{}, resp: auth.APIKey{}, status: 200, handler: s.changeMyKey},
		{method: "DELETE", path: "/v1/me/api-keys/:id", access: authed, scope: auth.WriteAPIKey, tag: "api-keys", summary: "Revoke one of the caller's API keys, at once",
			status: 204, handler: s.revokeMyKey},

		// Admin: wallets.
		{method: "POST", path: "/v1/wallets", access: admin, scope: auth.WriteWallet, tag: "admin", summary: "Create a wallet for a user",
			body: walletRequest{}, resp: wallet.Wallet{}, status: 201, handler: s.createWallet},
		{method: "GET", path: "/v1/wallets", access: admin, scope: auth.ReadWallet, tag: "admin", summary: "List wallets",
			query: listQuery, resp: []wallet.Wallet{}, status: 200, handler: s.listWallets},
		{method: "GET", path: "/v1/wallets/:id", access: admin, scope: auth.ReadWallet, tag: "admin", summary: "Read a wallet",
			resp: wallet.Wallet{}, status: 200, handler: s.getWallet},
		{method: "DELETE", path: "/v1/wallets/:id", access: admin, scope: auth.WriteWallet, tag: "admin", summary: "Delete an empty wallet and revoke its owner's API keys",
			status: 204, handler: s.deleteWallet},

		// Admin: invoices and payments of any wallet.
		{method: "POST", path: "/v1/invoices", access: admin, scope: auth.WriteTransaction, tag: "admin", summary: "Create an invoice into any wallet",
			body: adminInvoiceRequest{}, resp: ledger.Invoice{}, status: 201, handler: s.createInvoice},
		{method: "GET", path: "/v1/invoices", access: admin, scope: auth.ReadTransaction, tag: "admin", summary: "List invoices of any wallet",
			query: append([]string{"wallet_id", "status", "ledger"}, listQuery...), resp: []ledger.Invoice{}, status: 200, handler: s.listInvoices},
		{method: "GET", path: "/v1/invoices/export", access: admin, scope: auth.ReadTransaction, tag: "admin", summary: "Export the invoices of every wallet, or of wallet_id: CSV or JSON Lines, streamed",
			note: exportNote, query: append([]string{"wallet_id"}, exportQuery...), resp: ledger.Invoice{}, file: true, status: 200, handler: s.exportInvoices},
		{method: "GET", path: "/v1/invoices/:id", access: admin, scope: auth.ReadTransaction, tag: "admin", summary: "Read any invoice",
			resp: ledger.Invoice{}, status: 200, handler: s.getInvoice},
		{method: "POST", path: "/v1/hold-invoices", access: admin, scope: auth.WriteTransaction, tag: "admin", summary: "Create a hold invoice into any wallet",
			note: holdNote, body: adminHoldInvoiceRequest{}, resp: ledger.Invoice{}, status: 201, handler: s.createHoldInvoice},
		{method: "POST", path: "/v1/invoices/:id/settle", access: admin, scope: auth.WriteTransaction, tag: "admin", summary: "Settle any Accepted hold invoice with its preimage",
			body: settleRequest{}, resp: ledger.Invoice{}, status: 200, handler: s.settleInvoice},
		{method: "POST", path: "/v1/invoices/:id/cancel", access: admin, scope: auth.WriteTransaction, tag: "admin", summary: "Cancel any hold invoice",
			resp: ledger.Invoice{}, status: 200, handler: s.cancelInvoice},
		{method: "POST", path: "/v1/payments", access: admin, scope: auth.WriteTransaction, tag: "admin", summary: "Pay from any wallet (wallet_id required)",
			body: adminPaymentRequest{}, resp: ledger.Payment{}, status: 201, handler: s.payAny},
		{method: "GET", path: "/v1/payments", access: admin, scope: auth.ReadTransaction, tag: "admin", summary: "List payments of any wallet",
			query: append([]string{"wallet_id", "status", "ledger", "api_key_id"}, listQuery...), resp: []ledger.Payment{}, status: 200, handler: s.listPayments},
		{method: "GET", path: "/v1/payments/export", access: admin, scope: auth.ReadTransaction, tag: "admin", summary: "Export the payments of every wallet, or of wallet_id: CSV or JSON Lines, streamed",
			note: exportNote, query: append([]string{"wallet_id", "api_key_id"}, exportQuery...), resp: ledger.Payment{}, file: true, status: 200, handler: s.exportPayments},
		{method: "GET", path: "/v1/payments/:id", access: admin, scope: auth.ReadTransaction, tag: "admin", summary: "Read any payment",
			resp: ledger.Payment{}, status: 200, handler: s.getPayment},

		// Admin: the Lightning node.
		{method: "GET", path: "/v1/lightning-node/info", access: admin, scope: auth.ReadLnNode, tag: "node", summary: "The Lightning node: alias, pubkey, network, height, channels, balances",
			resp: ledger.NodeInfo{}, status: 200, handler: s.nodeInfo},
		{method: "POST", path: "/v1/lightning-node/pay", access: admin, scope: auth.WriteLnNode, tag: "node", summary: "Embedded node only: pay an invoice of this instance as an outside payer",
			body: nodePayRequest{}, status: 204, handler: s.nodePay},

		// Admin: this server's numbers, from its metrics (stats.go).
		{method: "GET", path: "/v1/system/stats", access: admin, scope: auth.ReadWallet, tag: "system", summary: "This server's payments a minute (the last minute, each of the last 60), the node, the outbox's head and each consumer's lag",
			note: statsNote, resp: metrics.Stats{}, status: 200, handler: s.getStats},

		// Admin: plugins.
		{method: "GET", path: "/v1/plugins", access: admin, scope: auth.ReadWallet, tag: "plugins", summary: "List plugins, built-in and WebAssembly, with their state and grants",
			resp: []host.Info{}, status: 200, handler: s.listPlugins},
		{method: "POST", path: "/v1/plugins", access: admin, scope: auth.WriteWallet, tag: "plugins", summary: "Install a WebAssembly plugin: manifest, base64 module, sha256 pin (body up to plugins.max_wasm_bytes)",
			body: installRequest{}, resp: host.Info{}, status: 201, handler: s.installPlugin},
		{method: "GET", path: "/v1/plugins/catalog", access: admin, scope: auth.ReadWallet, tag: "plugins", summary: "The plugin catalog (plugins.catalog), each entry with the version installed and whether it has a newer one",
			resp: []host.CatalogEntry{}, status: 200, handler: s.pluginCatalog},
		{method: "POST", path: "/v1/plugins/install", access: admin, scope: auth.WriteWallet, tag: "plugins", summary: "Install a plugin from the catalog by name, or from a module's url with its sha256 and manifest; 200 when it updates the installed one to a newer version",
			body: host.InstallSource{}, resp: host.Info{}, status: 201, handler: s.installFrom},
		{method: "GET", path: "/v1/plugins/:name", access: admin, scope: auth.ReadWallet, tag: "plugins", summary: "Read a plugin",
			resp: host.Info{}, status: 200, handler: s.getPlugin},
		{method: "DELETE", path: "/v1/plugins/:name", access: admin, scope: auth.WriteWallet, tag: "plugins", summary: "Remove a plugin and its keys",
			status: 204, handler: s.removePlugin},
		{method: "POST", path: "/v1/plugins/:name/enable", access: admin, scope: auth.WriteWallet, tag: "plugins", summary: "Enable a plugin, granting scopes (declared by the plugin and held by the caller) and a wallet",
			body: enableRequest{}, resp: host.Info{}, status: 200, handler: s.enablePlugin},
		{method: "POST", path: "/v1/plugins/:name/disable", access: admin, scope: auth.WriteWallet, tag: "plugins", summary: "Disable a plugin",
			resp: host.Info{}, status: 200, handler: s.disablePlugin},
		{method: "PUT", path: "/v1/plugins/:name/config", access: admin, scope: auth.WriteWallet, tag: "plugins", summary: "Set a plugin's configuration (checked against its schema)",
			note: configNote, body: map[string]any{}, resp: host.Info{}, status: 200, handler: s.configurePlugin},
		{method: "GET", path: "/v1/plugins/:name/logs", access: admin, scope: auth.ReadWallet, tag: "plugins", summary: "A plugin's recent log lines, oldest first",
			query: []string{"limit"}, resp: []host.LogEntry{}, status: 200, handler: s.pluginLogs},

		// The plugins' own routes: public or scope-guarded as each manifest says.
		{method: "GET", path: "/v1/plugins/:name/*path", tag: "plugins", summary: "A plugin's route (access as its manifest declares)", status: 200, handler: s.pluginRoute},
		{method: "POST", path: "/v1/plugins/:name/*path", tag: "plugins", summary: "A plugin's route (access as its manifest declares)", status: 200, handler: s.pluginRoute},
		{method: "PUT", path: "/v1/plugins/:name/*path", tag: "plugins", summary: "A plugin's route (access as its manifest declares)", status: 200, handler: s.pluginRoute},
		{method: "DELETE", path: "/v1/plugins/:name/*path", tag: "plugins", summary: "A plugin's route (access as its manifest declares)", status: 200, handler: s.pluginRoute},
		{method: "PATCH", path: "/v1/plugins/:name/*path", tag: "plugins", summary: "A plugin's route (access as its manifest declares)", status: 200, handler: s.pluginRoute},
		{method: "GET", path: "/.well-known/*path", tag: "plugins", summary: "A public route under /.well-known/, served by the plugin granted its name (well-known:<name>)", status: 200, handler: s.wellKnownRoute},
		{method: "POST", path: "/.well-known/*path", tag: "plugins", summary: "A public route under /.well-known/, served by the plugin granted its name (well-known:<name>)", status: 200, handler: s.wellKnownRoute},

		// Admin: API keys of any user.
		{method: "POST", path: "/v1/api-keys", access: admin, scope: auth.WriteAPIKey, tag: "admin", summary: "Create an API key for any user",
			body: adminAPIKeyRequest{}, resp: auth.APIKey{}, status: 201, handler: s.createKey},
		{method: "GET", path: "/v1/api-keys", access: admin, scope: auth.ReadAPIKey, tag: "admin", summary: "List every API key",
			query: append([]string{"user_id"}, listQuery...), resp: []auth.APIKey{}, status: 200, handler: s.listKeys},
		{method: "GET", path: "/v1/api-keys/:id", access: admin, scope: auth.ReadAPIKey, tag: "admin", summary: "Read any API key",
			resp: auth.APIKey{}, status: 200, handler: s.getKey},
		{method: "PATCH", path: "/v1/api-keys/:id", access: admin, scope: auth.WriteAPIKey, tag: "admin", summary: "Change any API key: name, budget, expires_at",
			body: apiKeyChange{}, resp: auth.APIKey{}, status: 200, handler: s.changeKey},
		{method: "DELETE", path: "/v1/api-keys/:id", access: admin, scope: auth.WriteAPIKey, tag: "admin", summary: "Revoke any API key, at once",
			status: 204, handler: s.revokeKey},
	}, s.builtinRoutes()...) // the built-in plugins' own routes (builtin.go)
}

func noContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}
