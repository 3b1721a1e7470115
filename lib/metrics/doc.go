// Package metrics holds Hearth's Prometheus metrics: one registry per
// instance (Metrics), the families that the ledger, the API, the plugin
// host and the built-ins count into, and the collectors that read the
// outbox, the node and the database pools when Prometheus scrapes. It
// imports the standard library and prometheus/client_golang alone, so
// that core, host, api and the plugins may all use it.
//
// A family that belongs to one feature is its plugin's: the plugin
// registers it on the registry (Registerer), as the webhooks plugin does
// its deliveries' (plugins/webhooks/metrics.go). The families here are
// the server's and those that several built-ins share (the publications
// to Nostr relays, a transport of nostr and nwc alike).
//
// Every family of Hearth's own starts with hearth_ and follows
// Prometheus' naming (_total for counters, _seconds for durations);
// amounts are in msat, as the ledger keeps them. No label carries a
// wallet, a user, an address or an amount: the label values are drawn
// from small fixed sets (ledgers, statuses, outcomes), the API's route
// templates, and the names of installed plugins and outbox consumers.
//
// Stats reads, for the dashboard (GET /v1/system/stats), the few
// numbers an operator looks at first from the same families: the
// payments of the last minute and of each of the last 60 (a ring that
// RunHistory samples from hearth_payments_total every 5 s), the node and
// the outbox's consumers. Like the counters, they are this process's.
//
// A nil *Metrics, and each nil part of one, counts nothing: the code
// that counts checks for nil once (metrics off) and, with metrics on,
// uses label children resolved beforehand, so that counting an internal
// payment allocates nothing.
package metrics
