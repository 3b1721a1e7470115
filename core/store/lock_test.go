package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

func TestLockOnSQLiteIsAlwaysHeld(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	l, err := db.TryLock(context.Background(), "streams")
	if err != nil || l == nil {
		t.Fatalf("TryLock = %v, %v", l, err)
	}
	l.Release()
	l.Release()
}

// Two replicas contend: one wins; the other takes over when the first
// releases the lock, and again when the holder's session dies.
func TestLockHasOneHolderAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := storetest.Postgres(t)
	b := storetest.Replica(t, a)

	first, err := a.TryLock(ctx, "streams")
	if err != nil || first == nil {
		t.Fatalf("first TryLock = %v, %v", first, err)
	}
	if l, err := b.TryLock(ctx, "streams"); err != nil || l != nil {
		t.Fatalf("second replica took a held lock: %v, %v", l, err)
	}
	if l, err := b.TryLock(ctx, "another"); err != nil || l == nil {
		t.Fatalf("another lock name: %v, %v", l, err)
	} else {
		l.Release()
	}
	// Another schema of the same database is another instance.
	if l, err := storetest.Postgres(t).TryLock(ctx, "streams"); err != nil || l == nil {
		t.Fatalf("instance in another schema: %v, %v", l, err)
	} else {
		l.Release()
	}

	first.Release()
	second, err := b.TryLock(ctx, "streams")
	if err != nil || second == nil {
		t.Fatalf("take-over after release = %v, %v", second, err)
	}

	// The holder's session dies: the lock is free, and the holder learns
	// it lost the lock.
	pid, err := store.LockBackendPID(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.W.ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
		t.Fatal(err)
	}
	select {
	case <-second.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the holder was not told it lost the lock")
	}
	second.Release()
	third, err := a.TryLock(ctx, "streams")
	if err != nil || third == nil {
		t.Fatalf("take-over after the holder died = %v, %v", third, err)
	}
	third.Release()
}

// A process leads many jobs: their locks share one connection of their own
// and take none from the pool the requests use; within the process a lock
// still has one holder; and when that connection dies, every holder learns.
func TestLocksShareOneSessionOutsideThePool(t *testing.T) {
	t.Parallel()
	// A lock that waits for a pooled connection fails rather than hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := storetest.Postgres(t)
	names := []string{"stream", "sender", "events", "backup", "rates", "nwc"}
	var locks []*store.Lock
	for _, n := range names {
		l, err := db.TryLock(ctx, n)
		if err != nil || l == nil {
			t.Fatalf("TryLock(%s) = %v, %v", n, l, err)
		}
		locks = append(locks, l)
	}
	if n := store.LockPoolConns(db); n != 0 {
		t.Fatalf("%d locks hold %d of the pool's connections, want none", len(locks), n)
	}
	pid, err := store.LockBackendPID(ctx, locks[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locks[1:] {
		if p, err := store.LockBackendPID(ctx, l); err != nil || p != pid {
			t.Fatalf("a lock on backend %d, %v; the first on %d", p, err, pid)
		}
	}
	if l, err := db.TryLock(ctx, "sender"); err != nil || l != nil {
		t.Fatalf("a second holder in the process took a held lock: %v, %v", l, err)
	}
	locks[1].Release()
	again, err := db.TryLock(ctx, "sender")
	if err != nil || again == nil {
		t.Fatalf("TryLock after release = %v, %v", again, err)
	}
	locks[1] = again

	if _, err := db.W.ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
		t.Fatal(err)
	}
	for i, l := range locks {
		select {
		case <-l.Lost():
		case <-time.After(10 * time.Second):
			t.Fatalf("holder of %s was not told it lost the lock", names[i])
		}
		l.Release()
	}
	l, err := db.TryLock(ctx, "stream")
	if err != nil || l == nil {
		t.Fatalf("TryLock after the session died = %v, %v", l, err)
	}
	if p, err := store.LockBackendPID(ctx, l); err != nil || p == pid {
		t.Fatalf("new lock on backend %d, %v; the dead one was %d", p, err, pid)
	}
	l.Release()
}
