package signals

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestHeard: an invoice.settled of an invoice of the pool counts at its
// first arrival; other events, other invoices and what is not JSON do not.
func TestHeard(t *testing.T) {
	s := newArrivals([]string{"lnbc-a", "lnbc-b"})
	s.heard(s.stream, []byte(`{"type":"invoice.created","data":{"ln_invoice":{"bolt11":"lnbc-a"}}}`))
	s.heard(s.stream, []byte(`{"type":"invoice.settled","data":{"ln_invoice":{"bolt11":"lnbc-other"}}}`))
	s.heard(s.stream, []byte(`not json`))
	if s.stream[0].Load() != 0 || s.stream[1].Load() != 0 {
		t.Fatal("an event that is not a pool invoice's invoice.settled counted")
	}
	settled := []byte(`{"type":"invoice.settled","data":{"ln_invoice":{"bolt11":"lnbc-b"}}}`)
	s.heard(s.webhook, settled)
	first := s.webhook[1].Load()
	time.Sleep(time.Millisecond)
	s.heard(s.webhook, settled)
	if first == 0 || s.webhook[1].Load() != first || s.stream[1].Load() != 0 || s.webhook[0].Load() != 0 {
		t.Errorf("webhook %d then %d, stream %d: want the first arrival, at the webhook alone", first, s.webhook[1].Load(), s.stream[1].Load())
	}
}

// TestDelay: the percentiles of the delays from each answer to its
// event's arrival over a range of the pool; an event that came before its
// answer counts 0; an empty range says "-".
func TestDelay(t *testing.T) {
	s := newArrivals(make([]string, 5))
	base := time.Now().UnixNano()
	for j, d := range []time.Duration{5, 1, 3, 2, -4} { // milliseconds after the answer
		s.answered[j].Store(base)
		s.stream[j].Store(base + int64(d*time.Millisecond))
	}
	for _, tc := range []struct {
		from, to int64
		p        float64
		want     string
	}{
		{0, 5, 50, "2ms"},  // 0 1 2 3 5: the 3rd
		{0, 5, 100, "5ms"}, // the maximum
		{0, 5, 1, "0s"},    // the early one
		{1, 3, 99, "3ms"},  // 1 and 3
		{2, 2, 50, "-"},
	} {
		if got := s.delay(s.stream, tc.from, tc.to, tc.p); got != tc.want {
			t.Errorf("p%v over [%d, %d): %s, want %s", tc.p, tc.from, tc.to, got, tc.want)
		}
	}
}

// TestWait returns once every payment of the range has its event at
// both listeners (the stream's alone without webhooks), and else says how
// many have not after its patience.
func TestWait(t *testing.T) {
	s := newArrivals(make([]string, 4))
	for j := range 4 {
		s.stream[j].Store(1)
		if j != 2 {
			s.webhook[j].Store(1)
		}
	}
	ctx := context.Background()
	if err := s.wait(ctx, 0, 2, true, time.Second); err != nil {
		t.Errorf("all arrived: %v", err)
	}
	if err := s.wait(ctx, 0, 4, false, time.Second); err != nil {
		t.Errorf("all arrived on the stream, no webhooks: %v", err)
	}
	err := s.wait(ctx, 0, 4, true, 60*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "0 of 4 payments' events had not reached the stream, 1 the webhooks") {
		t.Errorf("one missing at the webhook: %v", err)
	}
	go func() { time.Sleep(20 * time.Millisecond); s.webhook[2].Store(1) }()
	if err := s.wait(ctx, 0, 4, true, 5*time.Second); err != nil {
		t.Errorf("the last one came late: %v", err)
	}
}
