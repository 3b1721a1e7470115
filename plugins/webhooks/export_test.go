package webhooks

// StreamsUp is migration 20261205000003 (the webhooks onto the host's
// streams), for its test.
var StreamsUp = webhooksStreams
