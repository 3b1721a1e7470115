package sdk

import "time"

// SendRequest is a request the host delivers for the plugin, reliably:
// it is queued in the host's database, then tried until the receiver
// answers 2xx (with backoff and jitter between attempts), across crashes
// and restarts, until GiveUpAfter. A 4xx other than 408 and 429 is
// given up at once. The plugin needs http:outbound:<host> for the URL's
// host, now and at each attempt.
type SendRequest struct {
	Method  string            `json:"method,omitempty"` // default POST
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
	// Key makes the send idempotent: a second Send with the same key
	// returns the first (an event handled again after a crash sends once).
	Key string `json:"key,omitempty"`
	// Dest orders the plugin's sends to it: one at a time, in the order
	// they were queued.
	Dest string `json:"dest,omitempty"`
	// GiveUpAfter is in seconds, 60 to 7 days; default one day.
	GiveUpAfter int64 `json:"give_up_after,omitempty"`
}

// SendStatus is what came of a send.
type SendStatus struct {
	ID         string     `json:"id"`
	State      string     `json:"state"` // pending, delivered or given_up
	Attempts   int        `json:"attempts"`
	LastStatus *int       `json:"last_status,omitempty"`
	LastError  *string    `json:"last_error,omitempty"`
	NextAt     *time.Time `json:"next_at,omitempty"`
	GiveUpAt   time.Time  `json:"give_up_at"`
	CreatedAt  time.Time  `json:"created_at"`
	DoneAt     *time.Time `json:"done_at,omitempty"`
	// Duplicate: a send of the same Key was queued before; this is it.
	Duplicate bool `json:"duplicate,omitempty"`
}

// Send hands req to the host's durable sender and returns at once, once
// it is queued.
func Send(req SendRequest) (*SendStatus, error) {
	st := new(SendStatus)
	return st, call(opSend, req, st)
}

// GetSend reads what came of send id (kept a week after it is done).
func GetSend(id string) (*SendStatus, error) {
	st := new(SendStatus)
	return st, call(opSendStatus, map[string]string{"id": id}, st)
}
