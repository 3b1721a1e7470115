package signals

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/operator"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// arrivals holds, by pool index, when each payment was answered and when
// its invoice's invoice.settled event reached the stream and the webhook
// (Unix nanoseconds; 0 for not yet).
type arrivals struct {
	index                     map[string]int64 // the pool's bolt11s
	answered, stream, webhook []atomic.Int64
	url                       string   // the webhooks' receiver
	hooks                     []string // the webhooks' ids, none while they are deleted
}

// newArrivals tracks the payments of the pool's invoices.
func newArrivals(pool []string) *arrivals {
	s := &arrivals{index: make(map[string]int64, len(pool)), answered: make([]atomic.Int64, len(pool)),
		stream: make([]atomic.Int64, len(pool)), webhook: make([]atomic.Int64, len(pool))}
	for j, b := range pool {
		s.index[b] = int64(j)
	}
	return s
}

// heard notes the event data (an outbox event's JSON) as arrived now in
// at, if it is the invoice.settled of an invoice of the pool; the first
// arrival counts.
func (s *arrivals) heard(at []atomic.Int64, data []byte) {
	var e struct {
		Type string
		Data struct {
			LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
		}
	}
	if json.Unmarshal(data, &e) != nil || e.Type != "invoice.settled" {
		return
	}
	if j, ok := s.index[e.Data.LnInvoice.Bolt11]; ok {
		at[j].CompareAndSwap(0, time.Now().UnixNano())
	}
}

// listen registers a webhook of invoice.settled on every payee wallet of
// l, received by a server of this process, and opens the admin's stream
// of the server at base; it
// returns once the stream answers, with what stops both.
func (s *arrivals) listen(ctx context.Context, l *operator.Load, base string) (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.heard(s.webhook, body)
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	sctx, cancel := context.WithCancel(ctx)
	stop = func() { cancel(); srv.Close() }
	s.url = "http://" + ln.Addr().String() + "/hook"
	err = s.hook(ctx, l, true)
	if err == nil {
		err = s.follow(sctx, base, l.Admin())
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("listening for the signals: %w", err)
	}
	return stop, nil
}

// follow reads the admin's stream of every event (GET /v1/events) of the
// server at base, with the admin's credential, until ctx ends.
func (s *arrivals) follow(ctx context.Context, base, admin string) error {
	return load.ReadStream(ctx, base+"/v1/events", admin, func(line []byte) {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			s.heard(s.stream, data)
		}
	})
}

// hook makes a webhook of invoice.settled on every payee wallet of l
// (on), or deletes them (off); it does nothing when they are so already.
func (s *arrivals) hook(ctx context.Context, l *operator.Load, on bool) error {
	if on == (len(s.hooks) > 0) {
		return nil
	}
	if !on {
		err := l.Parallel(len(s.hooks), func(i int) error {
			return l.Call(ctx, "DELETE", "/v1/webhooks/"+s.hooks[i], l.Admin(), nil, nil)
		})
		s.hooks = nil
		return err
	}
	s.hooks = make([]string, len(l.PayeeKeys()))
	return l.Parallel(len(l.PayeeKeys()), func(i int) error {
		var me, hook struct{ ID string }
		if err := l.Call(ctx, "GET", "/v1/me", l.PayeeKeys()[i], nil, &me); err != nil {
			return err
		}
		err := l.Call(ctx, "POST", "/v1/webhooks", l.Admin(), map[string]any{"wallet_id": me.ID, "url": s.url,
			"events": []string{"invoice.settled"}}, &hook)
		s.hooks[i] = hook.ID
		return err
	})
}

// wait waits until every payment of the pool's indexes [from, to) has
// its event on the stream, and at the webhook when hooked, or says how
// many have not after patience.
func (s *arrivals) wait(ctx context.Context, from, to int64, hooked bool, patience time.Duration) error {
	deadline := time.Now().Add(patience)
	for {
		var stream, webhook int
		for j := from; j < to; j++ {
			if s.stream[j].Load() == 0 {
				stream++
			}
			if hooked && s.webhook[j].Load() == 0 {
				webhook++
			}
		}
		if stream == 0 && webhook == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %s, %d of %d payments' events had not reached the stream, %d the webhooks",
				patience, stream, to-from, webhook)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// delay is the p-th percentile of the delays from answer to arrival in at
// over the indexes [from, to); an event that came before its answer was
// read counts 0.
func (s *arrivals) delay(at []atomic.Int64, from, to int64, p float64) string {
	var ds []time.Duration
	for j := from; j < to; j++ {
		ds = append(ds, time.Duration(max(0, at[j].Load()-s.answered[j].Load())))
	}
	if len(ds) == 0 {
		return "-"
	}
	slices.Sort(ds)
	return stats.Round(stats.Percentile(ds, p)).String()
}
