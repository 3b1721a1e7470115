package outbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"
)

// Stream says which events a client gets.
type Stream struct {
	// WalletID is the wallet whose events are sent; "" for every wallet.
	WalletID string
	// After, when Resume is set, is the last event the client saw
	// (Last-Event-ID): it gets every later one first. Without Resume it
	// gets the events from now on.
	After  int64
	Resume bool
}

// ErrDropped ends the stream of a client that did not take a write within
// the hub's WriteTimeout: it reconnects with its Last-Event-ID and loses
// nothing.
var ErrDropped = errors.New("stream client dropped: it did not read in time")

// Serve streams events to w as server-sent events until ctx ends, a write
// fails (the client left) or times out (ErrDropped), or the hub is closed. Each event's id is its
// outbox id; a comment line goes out every Heartbeat.
func (h *Hub) Serve(ctx context.Context, w http.ResponseWriter, st Stream) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-h.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	out := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: h.WriteTimeout}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := out.write([]byte(": events of the outbox\n\n")); err != nil {
		return err
	}
	after, catchUp := st.After, st.Resume
	if catchUp {
		if head, ok := h.awaitHead(ctx, after); !ok {
			if err := out.write(resetFrame(after, head)); err != nil {
				return err
			}
			after = head
		}
	}
	beat := time.NewTicker(h.Heartbeat)
	defer beat.Stop()
	for {
		var s *sub
		if catchUp {
			// From the outbox up to its head, then from the hub, after
			// what the hub sent before the client joined.
			if err := h.replayTo(ctx, st.WalletID, &after, 0, out); err != nil {
				return err
			}
			var pos int64
			s, pos = h.subscribe(st.WalletID)
			if err := h.replayTo(ctx, st.WalletID, &after, pos, out); err != nil {
				h.unsubscribe(s)
				return err
			}
		} else {
			s, after = h.subscribe(st.WalletID)
		}
		err := h.live(ctx, s, &after, beat.C, out)
		h.unsubscribe(s)
		if !errors.Is(err, errBehind) {
			return err
		}
		catchUp = true
	}
}

// unknownIDWait is how long a stream waits for the outbox to reach a
// Last-Event-ID beyond its head (another replica's head may be a few
// milliseconds ahead) before it tells the client it cannot resume.
const unknownIDWait = 3 * time.Second

// awaitHead waits, up to unknownIDWait, until the head reaches id; it
// returns the head and whether it did.
func (h *Hub) awaitHead(ctx context.Context, id int64) (int64, bool) {
	timeout := time.After(unknownIDWait)
	for {
		head, changed := h.o.Head()
		if head >= id {
			return head, true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return head, true // the client left: nothing to tell
		case <-timeout:
			head, _ = h.o.Head()
			return head, head >= id
		}
	}
}

// resetFrame is the event that tells a client its Last-Event-ID (after)
// is no event of this outbox (its database was restored from an older
// backup, or the id is another instance's): it cannot resume from it, and
// should read the wallet's records again; the stream goes on after the
// head, whose id the event carries, so that a reconnection resumes there.
func resetFrame(after, head int64) []byte {
	data := fmt.Sprintf(`{"reason":"Last-Event-ID %d is no event of this server (the newest is %d): read the records again, then follow the stream from here","last_event_id":%d}`, after, head, head)
	return []byte(fmt.Sprintf("id: %d\nevent: reset\ndata: %s\n\n", head, data))
}

// errBehind is live's answer when the hub left the client behind.
var errBehind = errors.New("behind")

// live sends what the hub hands s until ctx ends, a write fails, or the
// hub leaves s behind (errBehind: what it holds is sent first).
func (h *Hub) live(ctx context.Context, s *sub, after *int64, beat <-chan time.Time, out *sseWriter) error {
	send := func(f *frame) error {
		if f.id <= *after {
			return nil
		}
		if err := out.write(f.text); err != nil {
			return err
		}
		*after = f.id
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.behind:
			for {
				select {
				case f := <-s.ch:
					if err := send(f); err != nil {
						return err
					}
				default:
					return errBehind
				}
			}
		case <-beat:
			if err := out.write([]byte(": heartbeat\n\n")); err != nil {
				return err
			}
		case f := <-s.ch:
			if err := send(f); err != nil {
				return err
			}
		}
	}
}

// replayTo sends the events of walletID from the outbox, after after and
// up to upTo (0: up to the head), moving after.
func (h *Hub) replayTo(ctx context.Context, walletID string, after *int64, upTo int64, out *sseWriter) error {
	for {
		limit := upTo
		if limit == 0 {
			limit, _ = h.o.Head()
		}
		if *after >= limit {
			return nil
		}
		evs, reached, err := h.o.Read(ctx, *after, Filter{WalletID: walletID}, hubPage)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.ID > limit {
				break
			}
			f, err := encodeFrame(e)
			if err != nil {
				return err
			}
			if err := out.write(f.text); err != nil {
				return err
			}
			*after = e.ID
		}
		*after = max(*after, min(reached, limit))
	}
}

// sseWriter writes to a client within a deadline per write, and flushes.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (s *sseWriter) write(b []byte) error {
	// The server's WriteTimeout would cut a long stream: each write has
	// its own deadline instead.
	if err := s.rc.SetWriteDeadline(time.Now().Add(s.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	_, err := s.w.Write(b)
	if err == nil {
		err = s.rc.Flush()
		if errors.Is(err, http.ErrNotSupported) {
			err = nil
		}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w: %w", ErrDropped, err)
	}
	return err
}
