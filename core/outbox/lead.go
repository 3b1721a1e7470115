package outbox

import (
	"context"
	"time"
)

// leadRetry is how often a replica that does not lead a consumer tries to
// take over: the longest a consumer stays idle after its leader died.
const leadRetry = time.Second

// Lead runs fn while this process holds the lock of consumer name, so that
// one replica at a time runs it; when the lock is lost fn's context ends,
// and Lead tries again. Another replica takes over within leadRetry of the
// leader's death (PostgreSQL drops the lock with the leader's connection).
// On SQLite the one process always leads. Lead returns when ctx ends.
func (o *Outbox) Lead(ctx context.Context, name string, fn func(ctx context.Context)) {
	for ctx.Err() == nil {
		l, err := o.db.TryLock(ctx, "outbox:"+name)
		if err != nil && ctx.Err() == nil {
			o.log.WarnContext(ctx, "taking the lead of an event consumer", "consumer", name, "err", err)
		}
		if l != nil {
			lctx, cancel := context.WithCancel(ctx)
			stop := context.AfterFunc(ctx, cancel)
			go func() {
				select {
				case <-l.Lost():
					cancel()
				case <-lctx.Done():
				}
			}()
			fn(lctx)
			cancel()
			stop()
			l.Release()
		}
		select {
		case <-ctx.Done():
		case <-time.After(leadRetry):
		}
	}
}
