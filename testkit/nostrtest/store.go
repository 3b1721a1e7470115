package nostrtest

import (
	"context"
	"sync"

	gonostr "github.com/nbd-wtf/go-nostr"
)

// eventStore keeps a relay's stored events (the info event is
// replaceable: the latest of its author and kind is kept).
type eventStore struct {
	mu     sync.Mutex
	events []*gonostr.Event
}

func (s *eventStore) save(_ context.Context, ev *gonostr.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gonostr.IsReplaceableKind(ev.Kind) {
		kept := s.events[:0]
		for _, e := range s.events {
			if e.Kind != ev.Kind || e.PubKey != ev.PubKey {
				kept = append(kept, e)
			}
		}
		s.events = kept
	}
	s.events = append(s.events, ev)
	return nil
}

// delete forgets an event (a NIP-09 deletion its author asked for).
func (s *eventStore) delete(_ context.Context, ev *gonostr.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.events[:0]
	for _, e := range s.events {
		if e.ID != ev.ID {
			kept = append(kept, e)
		}
	}
	s.events = kept
	return nil
}

func (s *eventStore) matching(f gonostr.Filter) []*gonostr.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*gonostr.Event
	for _, ev := range s.events {
		if f.Matches(ev) {
			out = append(out, ev)
		}
	}
	return out
}

func (s *eventStore) query(_ context.Context, f gonostr.Filter) (chan *gonostr.Event, error) {
	out := s.matching(f)
	ch := make(chan *gonostr.Event, len(out))
	for _, ev := range out {
		ch <- ev
	}
	close(ch)
	return ch, nil
}
