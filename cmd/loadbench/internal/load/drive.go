package load

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

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
