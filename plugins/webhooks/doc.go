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
// which receivers check with Verify. In the background, on one replica at
// a time, the plugin reads the outbox after its durable cursor and queues a
// delivery per matching webhook and event (once: the pair is unique), then
// sends each webhook's queue in order, one request in flight per webhook,
// through the host's guarded outbound client, retrying with exponential
// backoff and jitter for Config.RetryWindow. A webhook that has failed
// without a success for Config.DisableAfter is disabled, with a reason its
// owner reads. Every attempt is recorded (GET …/deliveries).
//
// The plugin's tables (migration 20261123000051_webhooks) are its own.
package webhooks
