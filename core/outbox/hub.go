package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Hub fans the outbox's new events out to stream clients (Serve): it reads
// each new event once for all of them. Each client has a bounded buffer:
// a client whose buffer is full leaves the hub and reads the outbox by
// itself until it has caught up (a burst of events never costs a client
// an event), and a client that does not take a write within WriteTimeout
// is dropped (it resumes with its last event id). So a slow client never
// holds up a payment or another client.
type Hub struct {
	o *Outbox
	// Buffer is how many events a client may have waiting. Default 256.
	Buffer int
	// Heartbeat is how often an idle stream sends a comment line. Default 15s.
	Heartbeat time.Duration
	// WriteTimeout bounds each write to a client. Default 10s.
	WriteTimeout time.Duration

	mu   sync.Mutex
	pos  int64 // every event up to pos went to the clients
	subs map[*sub]struct{}

	closed    chan struct{}
	closeOnce sync.Once
}

// Close ends every stream (the server shuts down: a stream would keep it
// waiting); the clients resume elsewhere or later.
func (h *Hub) Close() { h.closeOnce.Do(func() { close(h.closed) }) }

// sub is a client's place in the hub.
type sub struct {
	walletID string // "" for every wallet
	ch       chan *frame
	behind   chan struct{} // closed when the hub left it: its buffer was full
}

// frame is an event encoded for the stream.
type frame struct {
	id       int64
	walletID string
	text     []byte // the whole server-sent event
}

// NewHub returns a hub over o; Run feeds it.
func NewHub(o *Outbox) *Hub {
	head, _ := o.Head()
	return &Hub{o: o, Buffer: 256, Heartbeat: 15 * time.Second, WriteTimeout: 10 * time.Second,
		pos: head, subs: map[*sub]struct{}{}, closed: make(chan struct{})}
}

// hubPage is how many events the hub reads at a time.
const hubPage = 500

// Run hands every new event to the clients until ctx ends.
func (h *Hub) Run(ctx context.Context) {
	for {
		head, changed := h.o.Head()
		h.mu.Lock()
		pos, idle := h.pos, len(h.subs) == 0
		if idle {
			h.pos = max(h.pos, head) // nobody to read for
		}
		h.mu.Unlock()
		if !idle && pos < head {
			evs, upTo, err := h.o.Read(ctx, pos, Filter{}, hubPage)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				h.o.log.WarnContext(ctx, "reading events for the stream", "err", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
				continue
			}
			h.broadcast(ctx, evs, upTo)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// broadcast hands evs to the clients and moves the hub to upTo.
func (h *Hub) broadcast(ctx context.Context, evs []Event, upTo int64) {
	frames := make([]*frame, 0, len(evs))
	for _, e := range evs {
		f, err := encodeFrame(e)
		if err != nil {
			h.o.log.ErrorContext(ctx, "encoding an event for the stream", "id", e.ID, "err", err)
			continue
		}
		frames = append(frames, f)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range frames {
		for s := range h.subs {
			if s.walletID != "" && s.walletID != f.walletID {
				continue
			}
			select {
			case s.ch <- f:
			default:
				delete(h.subs, s)
				close(s.behind)
			}
		}
	}
	h.pos = max(h.pos, upTo)
}

// subscribe adds a client of walletID and returns the position after
// which it gets the events.
func (h *Hub) subscribe(walletID string) (*sub, int64) {
	s := &sub{walletID: walletID, ch: make(chan *frame, h.Buffer), behind: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[s] = struct{}{}
	return s, h.pos
}

// Clients returns how many clients the hub serves.
func (h *Hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *Hub) unsubscribe(s *sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, s)
}

// encodeFrame writes e as a server-sent event: its id, its type, and the
// event as JSON.
func encodeFrame(e Event) (*frame, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encoding event %d: %w", e.ID, err)
	}
	text := make([]byte, 0, len(data)+64)
	text = append(text, "id: "...)
	text = strconv.AppendInt(text, e.ID, 10)
	text = append(text, "\nevent: "...)
	text = append(text, e.Type...)
	text = append(text, "\ndata: "...)
	text = append(text, data...)
	text = append(text, "\n\n"...)
	return &frame{id: e.ID, walletID: e.WalletID, text: text}, nil
}
