package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/lib/signature"
)

// streamHead is the event a stream retries, and its attempts so far.
type streamHead struct {
	id       int64
	attempts int
	since    time.Time // its first attempt
	next     time.Time // its next attempt
}

// streamWorker delivers one stream: the events the tail hands it while
// attached, else those it reads itself, one at a time, in order.
type streamWorker struct {
	r     *streamRunner
	id    streamID
	row   streamRow // what it was started with: wallet, types, URL, secret
	types []string
	stop  context.CancelFunc

	queue    chan outbox.Event
	attached bool  // r.mu: the tail hands it its events
	fedTo    int64 // r.mu: up to where the tail has handed them
	// shortSince (r.mu) is when its queue last had room for a reading of
	// the tail (zero: it has room now).
	shortSince time.Time
	wake       chan struct{}
	updates    chan *streamRow // the row as stored now (a test to send)

	// The worker's goroutine alone.
	head     *streamHead
	failing  bool // failures since the last success
	test     *streamRow
	sentTest int64 // the last test sent: a row read before it was forgotten brings it again

	mu        sync.Mutex // what the saver takes
	cursor    int64      // done with every event up to here
	movedAt   time.Time  // when the cursor last moved
	saved     int64
	attempts  []streamAttemptRow
	recovered bool
}

func newStreamWorker(r *streamRunner, row *streamRow) *streamWorker {
	w := &streamWorker{r: r, id: streamID{row.Owner, row.Key}, row: *row, types: row.types(),
		queue: make(chan outbox.Event, streamQueue), wake: make(chan struct{}, 1), updates: make(chan *streamRow, 1),
		cursor: row.Cursor, saved: row.Cursor, failing: row.FailingSince != nil}
	if row.HeadID != nil && row.HeadSince != nil && row.NextAt != nil {
		w.head = &streamHead{id: *row.HeadID, attempts: row.HeadAttempts, since: *row.HeadSince, next: *row.NextAt}
	}
	if row.TestID != nil {
		w.test = row
	}
	return w
}

// takes reports whether the stream takes e.
func (w *streamWorker) takes(e outbox.Event) bool {
	return e.WalletID == w.row.WalletID && slices.Contains(w.types, e.Type)
}

// nudge wakes the worker: the tail handed it events, or moved past some.
func (w *streamWorker) nudge() { poke(w.wake) }

// refresh hands the worker its row as stored now (called by reload alone).
func (w *streamWorker) refresh(row *streamRow) {
	select {
	case <-w.updates:
	default:
	}
	w.updates <- row
}

// run delivers until ctx ends.
func (w *streamWorker) run(ctx context.Context) {
	for ctx.Err() == nil {
		w.sendTest(ctx)
		if w.isAttached() {
			select {
			case e := <-w.queue:
				w.deliver(ctx, e)
				continue
			default:
			}
			if to, ok := w.r.fed(w); ok {
				w.done(to) // no event of its own up to there
			}
			select {
			case <-ctx.Done():
			case e := <-w.queue:
				w.deliver(ctx, e)
			case <-w.wake:
			case row := <-w.updates:
				w.takeTest(row)
			}
			continue
		}
		for len(w.queue) > 0 { // handed before it fell behind: read again below
			<-w.queue
		}
		evs, reached, err := w.r.box.Read(ctx, w.current(), outbox.Filter{WalletID: w.row.WalletID, Types: w.types}, streamQueue)
		if err != nil {
			if ctx.Err() == nil {
				w.r.s.log.WarnContext(ctx, "streams: reading the outbox", "owner", w.id.owner, "stream", w.id.key, "err", err)
			}
			w.pause(ctx, w.r.s.cfg.Poll)
			continue
		}
		for _, e := range evs {
			if w.deliver(ctx, e); ctx.Err() != nil {
				return
			}
		}
		w.done(reached)
		if len(evs) == streamQueue {
			continue
		}
		if ok, moved := w.r.attach(w, w.current()); !ok {
			select {
			case <-ctx.Done():
			case <-moved:
			case row := <-w.updates:
				w.takeTest(row)
			}
		}
	}
}

func (w *streamWorker) isAttached() bool {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.attached
}

// pause waits d, or until ctx ends.
func (w *streamWorker) pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// current is the last event the worker is done with.
func (w *streamWorker) current() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cursor
}

// done moves the cursor to id (never back), logging a (successful)
// attempt a when one is given.
func (w *streamWorker) done(id int64, a ...streamAttemptRow) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if id > w.cursor {
		w.movedAt = time.Now()
	}
	w.cursor = max(w.cursor, id)
	w.attempts = append(w.attempts, a...)
}

// progressed is when the worker's cursor last moved.
func (w *streamWorker) progressed() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.movedAt
}

// takeProgress returns what the worker did since its last save, and
// whether there is anything to save; the caller saves it, or gives it
// back.
func (w *streamWorker) takeProgress() (progress, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := progress{owner: w.id.owner, key: w.id.key, cursor: w.cursor, attempts: w.attempts, recovered: w.recovered}
	if w.cursor == w.saved && len(w.attempts) == 0 && !w.recovered {
		return p, false
	}
	w.saved, w.attempts, w.recovered = w.cursor, nil, false
	return p, true
}

// giveBack returns progress that could not be saved, for the next save.
func (w *streamWorker) giveBack(p progress) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.saved = min(w.saved, p.cursor-1)
	w.attempts = append(p.attempts, w.attempts...)
	w.recovered = w.recovered || p.recovered
}

// deliver sends e until it is delivered, given up, or ctx ends; a stream
// disabled meanwhile stops.
func (w *streamWorker) deliver(ctx context.Context, e outbox.Event) {
	if e.ID <= w.current() {
		return // had it (read before it attached)
	}
	body, err := json.Marshal(e)
	if err != nil {
		w.r.s.log.ErrorContext(ctx, "streams: encoding an event", "event", e.ID, "err", err)
		w.done(e.ID)
		return
	}
	h := w.head
	if h != nil && h.id != e.ID {
		h = nil // an event retried before a restart, given up or gone since
	}
	for {
		if h != nil {
			if w.pause(ctx, time.Until(h.next)); ctx.Err() != nil {
				return
			}
		}
		a := w.attempt(ctx, e.ID, body)
		if ctx.Err() != nil {
			return
		}
		if h != nil {
			a.Attempt = h.attempts + 1
		}
		if a.Error == nil {
			w.head = nil
			w.done(e.ID, a)
			if w.failing {
				w.mu.Lock()
				w.recovered = true
				w.mu.Unlock()
				w.failing = false
			}
			return
		}
		if h == nil {
			h = &streamHead{id: e.ID, since: a.At}
		}
		h.attempts = a.Attempt
		if !w.failed(ctx, h, a) {
			return
		}
	}
}

// failed records the failed attempt a of head h: it reports whether to
// try again (at h.next); not when it is given up (the cursor moves past
// it) or the stream was disabled (the worker stops).
func (w *streamWorker) failed(ctx context.Context, h *streamHead, a streamAttemptRow) bool {
	pol := w.r.s.policy(w.id.owner)
	h.next = a.At.Add(backoff(pol.FirstRetry, pol.MaxBackoff, h.attempts))
	givenUp := h.next.Sub(h.since) > pol.RetryWindow
	reason := fmt.Sprintf("Disabled after failing for %s without a successful delivery; last error: %s",
		pol.DisableAfter, deref(a.Error))
	w.failing = true
	p, _ := w.takeProgress()
	active, err := w.r.s.streams.failed(ctx, p, h, a, givenUp, a.At.Add(-pol.DisableAfter), reason)
	if err != nil {
		if ctx.Err() == nil {
			w.r.s.log.WarnContext(ctx, "streams: recording a failure", "owner", w.id.owner, "stream", w.id.key, "err", err)
		}
		w.giveBack(p)
		w.head = h
		return true
	}
	if !active {
		w.r.s.log.WarnContext(ctx, "streams: disabled a failing stream", "owner", w.id.owner, "stream", w.id.key)
		w.stop()
		return false
	}
	if givenUp {
		w.r.s.log.WarnContext(ctx, "streams: gave up an event", "owner", w.id.owner, "stream", w.id.key, "event", h.id,
			"attempts", h.attempts)
		w.head = nil
		w.done(h.id)
		w.mu.Lock()
		w.saved = max(w.saved, h.id) // failed saved it
		w.mu.Unlock()
		return false
	}
	w.head = h
	return true
}

// takeTest keeps the test row carries, if any and not sent yet.
func (w *streamWorker) takeTest(row *streamRow) {
	if row.TestID != nil && *row.TestID != w.sentTest {
		w.test = row
	}
}

// sendTest sends the stream's test, once, and forgets it.
func (w *streamWorker) sendTest(ctx context.Context) {
	select {
	case row := <-w.updates:
		w.takeTest(row)
	default:
	}
	if w.test == nil || w.test.TestID == nil || w.test.TestBody == nil {
		return
	}
	a := w.attempt(ctx, *w.test.TestID, []byte(*w.test.TestBody))
	if ctx.Err() != nil {
		return
	}
	if err := w.r.s.streams.tested(ctx, a); err != nil && ctx.Err() == nil {
		w.r.s.log.WarnContext(ctx, "streams: logging a test", "owner", w.id.owner, "stream", w.id.key, "err", err)
	}
	w.test, w.sentTest = nil, *w.test.TestID
}

// attempt POSTs body, as event id, once: the attempt as logged (Error nil
// when it was delivered).
func (w *streamWorker) attempt(ctx context.Context, id int64, body []byte) streamAttemptRow {
	pol := w.r.s.policy(w.id.owner)
	out, allowed := pol.Outbound, func(string) bool { return true }
	if out == nil {
		out, allowed = w.r.s.out, func(host string) bool { return w.r.s.allowed == nil || w.r.s.allowed(w.id.owner, host) }
	} else {
		allowed = nil // the owner's own client checks its grant
	}
	if w.r.budget.wait(ctx) != nil {
		return streamAttemptRow{}
	}
	select {
	case w.r.slots <- struct{}{}:
	case <-ctx.Done():
		return streamAttemptRow{}
	}
	defer func() { <-w.r.slots }()
	start := time.Now()
	resp, err := out.Do(ctx, allowed, OutboundRequest{Method: http.MethodPost, URL: w.row.URL,
		Headers: map[string]string{
			"Content-Type":    "application/json",
			signature.Header:  signature.Sign(w.row.Secret, start, body),
			"Hearth-Event-Id": strconv.FormatInt(id, 10),
		},
		Body: body, NoRedirects: true, PlainPrivateOnly: true})
	a := streamAttemptRow{Owner: w.id.owner, Key: w.id.key, EventID: id, Attempt: 1,
		DurationMS: time.Since(start).Milliseconds(), At: time.Now().UTC()}
	status := 0
	switch {
	case err != nil:
		a.Error = errText(err.Error())
	case resp.Status >= 200 && resp.Status < 300:
	case resp.Status >= 300 && resp.Status < 400:
		a.Error = errText(fmt.Sprintf("redirect to %q not followed: the URL must answer 2xx itself", resp.Headers["Location"]))
	default:
		a.Error = errText(fmt.Sprintf("HTTP %d", resp.Status))
	}
	if resp != nil {
		status = resp.Status
		a.StatusCode = &resp.Status
	}
	if pol.OnAttempt != nil && ctx.Err() == nil {
		pol.OnAttempt(status)
	}
	return a
}
