package host

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Send is a request handed to the durable sender (Sender).
type Send struct {
	// Kind names who queued it in the metrics (hearth_sends_total's
	// kind); default "plugin:<owner>".
	Kind    string
	Method  string // default POST
	URL     string
	Headers map[string]string
	Body    []byte
	// Key, when set, makes the send idempotent: queueing the same key
	// again returns the first send (an event handled twice after a
	// crash sends once).
	Key string
	// Dest, when set, orders the owner's sends to it: one at a time, in
	// the order they were queued, a failing one holding the rest back.
	Dest string
	// GiveUpAfter is how long it is tried; default DefaultGiveUp.
	GiveUpAfter time.Duration
	// Via, when set, names the built-in's Transport that delivers it (URL
	// and Body are then the transport's to read); else it is an HTTP
	// request.
	Via string
}

// Limits of sends.
const (
	DefaultGiveUp  = 24 * time.Hour
	MaxGiveUp      = 7 * 24 * time.Hour
	MaxSendBody    = 256 << 10
	maxSendHeaders = 32
	maxSendKey     = 128
	maxViaURL      = 2048
	// MaxPendingSends bounds the sends a plugin has waiting, so that a
	// plugin sending to a dead receiver does not fill the database.
	MaxPendingSends = 10_000
)

// SendStatus is a send as its owner sees it.
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
	// Duplicate: a send of the same key was queued before; this is it.
	Duplicate bool `json:"duplicate,omitempty"`
}

func statusOf(r *sendRow, dup bool) *SendStatus {
	st := &SendStatus{ID: r.ID, State: r.State, Attempts: r.Attempts, LastStatus: r.LastStatus, LastError: r.LastError,
		GiveUpAt: r.GiveUpAt, CreatedAt: r.CreatedAt, DoneAt: r.DoneAt, Duplicate: dup}
	if r.State == SendPending {
		next := r.NextAt
		st.NextAt = &next
	}
	return st
}

// Queue hands req to the sender for owner, written through w: the
// transaction of the change it reports, when the caller has one, so that
// the send exists exactly when the change does. The sender is woken once
// w commits (Kick); a send another replica queued is found within a poll.
func (s *Sender) Queue(ctx context.Context, w bun.IDB, owner string, req Send) (*SendStatus, error) {
	row, err := s.rowOf(owner, req)
	if err != nil {
		return nil, err
	}
	limit := MaxPendingSends
	if req.Via != "" {
		limit = 0
	}
	got, dup, err := s.store.insert(ctx, w, row, limit)
	if errors.Is(err, ErrSendLimit) {
		return nil, callErrorf("limit", "a plugin has at most %d sends pending", MaxPendingSends)
	}
	if err != nil {
		return nil, err
	}
	return statusOf(got, dup), nil
}

// Kick wakes the sender after a Queue committed.
func (s *Sender) Kick() { s.kick() }

// rowOf checks req and makes its row.
func (s *Sender) rowOf(owner string, req Send) (*sendRow, error) {
	if req.Method == "" {
		req.Method = http.MethodPost
	}
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodGet, http.MethodDelete:
	default:
		return nil, callErrorf("invalid", "method %q", req.Method)
	}
	switch {
	case req.Via != "" && (req.URL == "" || len(req.URL) > maxViaURL):
		return nil, callErrorf("invalid", "url must be 1 to %d bytes", maxViaURL)
	case req.Via == "" && !strings.HasPrefix(req.URL, "https://") && !strings.HasPrefix(req.URL, "http://"):
		return nil, callErrorf("invalid", "url must be http(s)")
	}
	if len(req.Body) > MaxSendBody {
		return nil, callErrorf("invalid", "body larger than %d bytes", MaxSendBody)
	}
	if len(req.Headers) > maxSendHeaders {
		return nil, callErrorf("invalid", "more than %d headers", maxSendHeaders)
	}
	if len(req.Key) > maxSendKey || len(req.Dest) > maxSendKey {
		return nil, callErrorf("invalid", "key and dest are at most %d bytes", maxSendKey)
	}
	if req.GiveUpAfter == 0 {
		req.GiveUpAfter = DefaultGiveUp
	}
	// A built-in's transport takes the retry window its operator set.
	if req.GiveUpAfter < time.Minute || (req.Via == "" && req.GiveUpAfter > MaxGiveUp) {
		return nil, callErrorf("invalid", "give_up_after must be between 60 s and %d days", int(MaxGiveUp.Hours()/24))
	}
	if req.Kind == "" {
		req.Kind = "plugin:" + owner
	}
	headers, err := json.Marshal(req.Headers)
	if err != nil {
		return nil, callErrorf("invalid", "headers: %v", err)
	}
	now := time.Now().UTC()
	row := &sendRow{Owner: owner, Kind: req.Kind, Dest: req.Dest, Via: req.Via, Method: req.Method, URL: req.URL, Headers: string(headers),
		Body: req.Body, State: SendPending, NextAt: now, GiveUpAt: now.Add(req.GiveUpAfter), CreatedAt: now}
	if row.Body == nil {
		row.Body = []byte{}
	}
	if req.Key != "" {
		row.Key = &req.Key
	}
	return row, nil
}

// Send queues req for the plugin (its own transaction) and wakes the
// sender: the http:outbound grant of the URL's host applies, now and
// before each attempt.
func (c *Caller) Send(ctx context.Context, req Send) (*SendStatus, error) {
	if req.Via != "" {
		return nil, callErrorf("invalid", "a send through a transport is queued with Queue")
	}
	if err := c.allowSend(ctx, req.URL); err != nil {
		return nil, err
	}
	if c.api.out == nil {
		return nil, callErrorf("unavailable", "outbound HTTP is not configured")
	}
	var st *SendStatus
	err := c.api.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		st, err = c.api.sender.Queue(ctx, tx, c.p.Name, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	c.KickSends()
	return st, nil
}

// allowSend checks an HTTP send to url against the grant
// (http:outbound:<host>).
func (c *Caller) allowSend(ctx context.Context, url string) error {
	host, err := requestHost(url)
	if err != nil {
		return callErrorf("invalid", "%v", err)
	}
	return c.allow(ctx, need{host: host, what: "send"})
}

// SendStatus reads the plugin's send id: not_found once pruned (a week
// after it was done) or another plugin's.
func (c *Caller) SendStatus(ctx context.Context, id string) (*SendStatus, error) {
	if err := c.allow(ctx, need{what: "send_status"}); err != nil {
		return nil, err
	}
	row, err := c.api.sender.store.get(ctx, c.p.Name, id)
	if err != nil {
		return nil, err
	}
	if row == nil {
		return nil, callErrorf("not_found", "no send %q", id)
	}
	return statusOf(row, false), nil
}

// sendOp is the send host function.
func sendOp(ctx context.Context, c *Caller, req []byte) (any, error) {
	var in struct {
		Method      string            `json:"method"`
		URL         string            `json:"url"`
		Headers     map[string]string `json:"headers"`
		Body        []byte            `json:"body"`
		Key         string            `json:"key"`
		Dest        string            `json:"dest"`
		GiveUpAfter int64             `json:"give_up_after"` // seconds
	}
	if err := decodeReq(req, &in); err != nil {
		return nil, err
	}
	return c.Send(ctx, Send{Method: in.Method, URL: in.URL, Headers: in.Headers, Body: in.Body, Key: in.Key, Dest: in.Dest,
		GiveUpAfter: time.Duration(in.GiveUpAfter) * time.Second})
}

// sendStatusOp is the send_status host function.
func sendStatusOp(ctx context.Context, c *Caller, req []byte) (any, error) {
	var in struct {
		ID string `json:"id"`
	}
	if err := decodeReq(req, &in); err != nil {
		return nil, err
	}
	return c.SendStatus(ctx, in.ID)
}
