package ledger

import "context"

// OwnBatches is how many batches of payments inside the instance s has
// sent to PostgreSQL (0 on SQLite, which has no batches).
func OwnBatches(s *Service) int64 {
	if s.own == nil {
		return 0
	}
	return s.own.batches.Load()
}

// OwnDeadlocks is how many of s's batches, and payments in them,
// PostgreSQL undid to break a deadlock.
func OwnDeadlocks(s *Service) int64 {
	if s.own == nil {
		return 0
	}
	return s.own.deadlocks.Load()
}

// HoldBatches makes the payments inside the instance that s pays next
// queue, as behind a batch in flight: queued says how many wait, and
// release sends them in one batch (up to maxOwnBatch) and returns once it
// has been answered. PostgreSQL only.
func HoldBatches(s *Service) (queued func() int, release func()) {
	b := s.own
	b.mu.Lock()
	b.running = true
	b.mu.Unlock()
	queued = func() int {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue)
	}
	return queued, b.next
}

// PayRaw queues, unchecked, a payment of the text bolt11 from payer with
// payment id and idempotency key (none if ""), as payOwn would, and
// returns its batch's answer. PostgreSQL only.
func PayRaw(ctx context.Context, s *Service, bolt11, payer, id, key string) error {
	item := ownItem{Bolt11: bolt11, Payer: payer, ID: id, Now: s.timestamp(), Hash: "raw"}
	if key != "" {
		item.Key = &key
	}
	_, err := s.own.pay(ctx, item)
	return err
}

// UnlockedBatches is how many of s's batches went without up-front
// locks, s knowing itself alone (alone.go).
func UnlockedBatches(s *Service) int64 {
	if s.own == nil {
		return 0
	}
	return s.own.unlocked.Load()
}

// PresencePID is the PostgreSQL backend holding s's mark among the
// replicas (0 if it has not joined).
func PresencePID(s *Service) int {
	if s.own == nil || s.own.presence == nil {
		return 0
	}
	return s.own.presence.PID()
}
