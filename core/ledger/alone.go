package ledger

import (
	"context"
	"time"
)

// The batches of internal payments on PostgreSQL lock every wallet of a
// batch up front, in one global order, so that the batches of two
// replicas on one database wait for each other rather than deadlock
// (batch.go). A replica alone on its database needs no such order: its
// batches run one at a time, and the one other kind of transaction that
// moves money between two wallets (payInternal: a budgeted payment) waits
// for the batch in this process (ownBatcher.excl) rather than in the
// database. The up-front locks cost some 8 % of PostgreSQL's CPU per
// payment in one A/B (docs/performance.md), so a ledger takes them only while it
// cannot tell that it is alone: until it has joined (Join), and whenever
// another process has joined too.
//
// A ledger that joins where others are present waits joinGrace before
// Join returns (before its server serves), so that the others, polling
// every alonePoll, have begun to lock before its first batch. Past that, a
// deadlock between a batch that locked and one that did not (a replica
// joining while the other's poll is late) is broken by PostgreSQL and the
// payments in it paid again, as any deadlock's (batch.go).

// presenceName is the name under which ledgers join.
const presenceName = "ledger.replicas"

// alonePoll is how often a joined ledger looks for other replicas.
const alonePoll = time.Second

// joinGrace is how long a ledger joining others waits for them to see it.
const joinGrace = 3 * alonePoll

// Join marks the ledger present among the replicas of its database, and
// sets it alone if it is; FollowReplicas then follows that until its ctx
// ends. Without Join (a tool's ledger, a test's) a ledger always takes
// the up-front locks. SQLite has no batches: Join does nothing.
func (s *Service) Join(ctx context.Context) error {
	if s.own == nil {
		return nil
	}
	p, err := s.db.Join(ctx, presenceName)
	if err != nil {
		return err
	}
	others, err := p.Others(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "looking for other replicas", "err", err)
	}
	if others {
		select {
		case <-ctx.Done():
		case <-time.After(joinGrace):
		}
	}
	s.own.presence = p
	s.own.alone.Store(!others)
	s.log.InfoContext(ctx, "joined the replicas on the database", "alone", !others)
	return nil
}

// FollowReplicas looks for other replicas every alonePoll until ctx ends,
// then leaves, locking up front again. It returns at once if the ledger
// has not joined. A presence whose connection failed counts others
// present (its mark is gone: they may count themselves alone) and is
// made anew at the next poll.
func (s *Service) FollowReplicas(ctx context.Context) {
	if s.own == nil || s.own.presence == nil {
		return
	}
	p := s.own.presence
	defer func() {
		if p != nil {
			p.Leave()
		}
	}()
	defer s.own.alone.Store(false)
	t := time.NewTicker(alonePoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if p == nil {
			np, err := s.db.Join(ctx, presenceName)
			if err != nil {
				continue
			}
			p = np
		}
		others, err := p.Others(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "looking for other replicas; batches lock up front", "err", err)
			p.Leave()
			p = nil
		}
		if was := s.own.alone.Swap(!others); was == others {
			s.log.InfoContext(ctx, "replicas on the database changed", "alone", !others)
		}
	}
}

// Alone reports whether the ledger knows itself the one replica on its
// database (joined, and no other present at its last look): nobody else
// needs to hear of its writes.
func (s *Service) Alone() bool { return s.own != nil && s.own.alone.Load() }
