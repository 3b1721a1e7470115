package ledger

import (
	"sync/atomic"
	"time"
)

// paying sums the time that payments inside the instance spent being
// paid, waiting for their turn included. Its growth over a second is how
// many were being paid on average in that second (Little's law): a few
// while the ledger keeps up, the clients' whole number once payments
// queue. The host's event streams read it to give way to payments
// (host/streambudget.go).
type paying struct{ nanos atomic.Int64 }

// since adds the time since start.
func (p *paying) since(start time.Time) { p.nanos.Add(int64(time.Since(start))) }

// PayingTime is the time payments inside the instance spent being paid,
// summed over the payments, since the ledger started.
func (s *Service) PayingTime() time.Duration { return time.Duration(s.paying.nanos.Load()) }
