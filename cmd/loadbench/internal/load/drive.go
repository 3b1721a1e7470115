// Package load is loadbench's client side: the clients that pay
// concurrently, flat out or on a fixed schedule (Drive), a phase's
// measurements (Result), a client's light keep-alive connection to
// Hearth's API (Conn) and a reader of its event stream (ReadStream).
package load

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// PaymentMsat is what every measured payment moves.
const PaymentMsat = 1000

// Result is one phase's measurements.
type Result struct {
	Name      string
	FixedRate bool // paced, not flat out: its rate is not a capacity
	Elapsed   time.Duration
	Latencies []time.Duration // sorted
	CPU       machine.Reading // processor time of the measured payments
	PGCPU     bool            // CPU.PG was measured
}

// Rate is the payments measured per second.
func (r Result) Rate() float64 { return float64(len(r.Latencies)) / r.Elapsed.Seconds() }

// Percentile returns the p-th percentile latency (100 is the maximum).
func (r Result) Percentile(p float64) time.Duration { return stats.Percentile(r.Latencies, p) }

// CPUPerPayment is the processor time of one payment, Hearth's and the
// database's, in seconds (0 for none).
func (r Result) CPUPerPayment() float64 {
	if len(r.Latencies) == 0 {
		return 0
	}
	return (r.CPU.Self + r.CPU.PG).Seconds() / float64(len(r.Latencies))
}

// Drive makes clients pay concurrently, client i through pay(i, k) for its
// k-th payment: the first warm payments of each client are not measured,
// the next measured ones are. With rate 0 each client pays again as soon as
// it has an answer (a closed loop: the throughput); otherwise the clients
// together start rate payments a second on a fixed schedule, and a
// payment's latency counts from the moment it was due, so that a server
// falling behind cannot hide its queue. meter reads the processor time
// spent so far, around the measured payments. A client's first error
// stops that client, and is returned once the others are done.
func Drive(name string, clients, warm, measured int, rate float64, meter func() machine.Reading, pay func(client, k int) error) (Result, error) {
	var (
		wg    sync.WaitGroup
		ready sync.WaitGroup
		start = make(chan struct{})
		t0    time.Time
		lats  = make([][]time.Duration, clients)
		errs  = make([]error, clients)
	)
	interval := time.Duration(0)
	if rate > 0 {
		interval = time.Duration(float64(clients) / rate * float64(time.Second))
	}
	for i := range clients {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			for k := range warm {
				if errs[i] = pay(i, k); errs[i] != nil {
					ready.Done()
					return
				}
			}
			ready.Done()
			<-start
			lat := make([]time.Duration, 0, measured)
			for k := range measured {
				due := time.Now()
				if interval > 0 {
					due = t0.Add(time.Duration(k)*interval + time.Duration(i)*interval/time.Duration(clients))
					time.Sleep(time.Until(due))
				}
				if errs[i] = pay(i, warm+k); errs[i] != nil {
					return
				}
				lat = append(lat, time.Since(due))
			}
			lats[i] = lat
		}()
	}
	ready.Wait()
	cpu0 := meter()
	t0 = time.Now()
	close(start)
	wg.Wait()
	r := Result{Name: name, FixedRate: rate > 0, Elapsed: time.Since(t0)}
	r.CPU = meter().Sub(cpu0)
	for i := range clients {
		if errs[i] != nil {
			return r, fmt.Errorf("client %d: %w", i, errs[i])
		}
		r.Latencies = append(r.Latencies, lats[i]...)
	}
	slices.Sort(r.Latencies)
	return r, nil
}
