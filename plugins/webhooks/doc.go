// Package webhooks is the built-in plugin that delivers a wallet's events
// to HTTP endpoints of its owner's choosing, signed.
//
// Its routes (/v1/me/webhooks…, and /v1/webhooks… for the admin) register
// endpoints: an https URL (or, with plugins.allow_private_hosts, an http
// one on a private or loopback address) and the event types wanted. The
// secret, shown once at creation, keys an HMAC-SHA256 of every delivery:
//
//	Hearth-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
//
// which receivers check with Verify. Each webhook is an event stream of the
// host's sender (host.Caller.OpenStream, in the transaction that stores the
// webhook): the host delivers its events in order, at least once, on one
// replica at a time, through the plugin's guarded outbound client, retrying
// with exponential backoff and jitter for Config.RetryWindow (the plugin's
// host.StreamPolicy). A webhook that has failed without a success for
// Config.DisableAfter is disabled, with a reason its owner reads. Every
// attempt is logged (GET …/deliveries reads the stream's log).
//
// The plugin's table of webhooks (migrations 20261123000051_webhooks and
// 20261205000003_webhooks_streams) is its own.
package webhooks
