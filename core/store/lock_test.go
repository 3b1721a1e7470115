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
