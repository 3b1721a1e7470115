package metrics

import (
	"context"
	"testing"
	"time"
)

// TestHistoryMinutes: payments counted across minutes land in their
// minutes, the last being the minute in progress; the last minute is the
// last 60 to 65 seconds; before the first sample the counters were zero;
// a missed sample takes the one before it.
func TestHistoryMinutes(t *testing.T) {
	t.Parallel()
	m := New("test")
	l := m.Ledger()
	base := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)
	sample := func(at time.Time) { m.history.record(at, l.tally()) }

	// 14:00:00 the first sample; two payments in 14:00, one failed.
	sample(base)
	l.PaymentSettled("Internal", 1000, 0, time.Millisecond)
	l.PaymentSettled("Lightning", 1000, 10, time.Second)
	l.PaymentFailed("Lightning")
	for s := 5 * time.Second; s < time.Minute; s += 5 * time.Second {
		sample(base.Add(s))
	}
	// 14:01:00 missed (the sampler was late): 14:00:55 stands for it.
	// Three internal payments in 14:01, after its first sample.
	sample(base.Add(time.Minute + 5*time.Second))
	for range 3 {
		l.PaymentSettled("Internal", 1, 0, 0)
	}
	for s := 70 * time.Second; s <= 120*time.Second; s += 5 * time.Second {
		sample(base.Add(s))
	}
	// One more in 14:02, the minute in progress at 14:02:30.
	l.PaymentSettled("Onchain", 5000, 300, time.Hour)
	now := base.Add(150 * time.Second)
	ps := m.history.payments(now, l.tally())

	if len(ps.Minutes) != 60 {
		t.Fatalf("%d minutes, want 60", len(ps.Minutes))
	}
	last := ps.Minutes[59]
	if !last.Start.Equal(base.Add(2*time.Minute)) || last.Settled != 1 || last.ByLedger["onchain"] != 1 {
		t.Errorf("the minute in progress: %+v", last)
	}
	if m1 := ps.Minutes[58]; !m1.Start.Equal(base.Add(time.Minute)) || m1.Settled != 3 || m1.ByLedger["internal"] != 3 || m1.Failed != 0 {
		t.Errorf("14:01: %+v", m1)
	}
	if m0 := ps.Minutes[57]; m0.Settled != 2 || m0.ByLedger["internal"] != 1 || m0.ByLedger["lightning"] != 1 || m0.Failed != 1 {
		t.Errorf("14:00: %+v", m0)
	}
	for _, c := range ps.Minutes[:57] {
		if c.Settled != 0 || c.Failed != 0 {
			t.Errorf("%s, before the first sample: %+v", c.Start, c)
		}
	}
	// The last minute: from the sample of 14:01:30 on, the one of 14:02.
	if lm := ps.LastMinute; lm.Settled != 1 || lm.ByLedger["onchain"] != 1 || len(lm.ByLedger) != 3 {
		t.Errorf("the last minute: %+v", lm)
	}
	// Seventy minutes on, the ring has turned: the hour holds only the
	// payment of 15:10.
	for at := base.Add(125 * time.Second); at.Before(base.Add(70 * time.Minute)); at = at.Add(5 * time.Second) {
		sample(at)
	}
	l.PaymentSettled("Internal", 1, 0, 0)
	later := m.history.payments(base.Add(70*time.Minute+10*time.Second), l.tally())
	var sum int64
	for _, c := range later.Minutes {
		sum += c.Settled
	}
	if sum != 1 || later.Minutes[59].Settled != 1 || !later.Minutes[0].Start.Equal(base.Add(11*time.Minute)) || later.LastMinute.Settled != 1 {
		t.Errorf("an hour on: %d in the hour, %+v first, %+v last, %+v in the last minute", sum, later.Minutes[0], later.Minutes[59], later.LastMinute)
	}
}

// TestRunHistorySamples: RunHistory samples at once, and Stats tells
// the payments counted since, with the node and the outbox as their
// collectors read them: a consumer that is off is told off, without lag.
func TestRunHistorySamples(t *testing.T) {
	t.Parallel()
	m := New("test")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.RunHistory(ctx)
	}()
	m.Ledger().PaymentSettled("Internal", 1000, 0, 0)
	m.WatchNode("lnd", func(context.Context) (NodeState, error) { return NodeState{BlockHeight: 812000, Channels: 3}, nil })
	m.WatchOutbox(func(context.Context) (OutboxState, error) {
		return OutboxState{Head: 42, Consumers: []ConsumerLag{{Name: "webhooks", Events: 5, Seconds: 90}, {Name: "nostr"}, {Name: "nwc", Off: true}}}, nil
	})
	st := m.Stats()
	cancel()
	<-done
	if st.Payments.LastMinute.Settled != 1 || st.Payments.Minutes[59].Settled+st.Payments.Minutes[58].Settled != 1 {
		t.Errorf("payments: %+v", st.Payments.LastMinute)
	}
	if n := st.Node; n == nil || n.Backend != "lnd" || !n.Up || n.BlockHeight != 812000 || n.Channels != 3 {
		t.Errorf("node: %+v", n)
	}
	o := st.Outbox
	if o == nil || o.Head != 42 || len(o.Consumers) != 3 || o.Consumers[0] != (ConsumerStats{Name: "nostr", State: "running"}) ||
		o.Consumers[1] != (ConsumerStats{Name: "nwc", State: "off"}) ||
		o.Consumers[2] != (ConsumerStats{Name: "webhooks", State: "running", LagEvents: 5, LagSeconds: 90}) {
		t.Errorf("outbox: %+v", o)
	}
	if len(st.Errors) != 0 || st.Since.After(st.At) {
		t.Errorf("stats: %+v", st)
	}
}
