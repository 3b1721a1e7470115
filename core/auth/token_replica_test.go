package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A password change on one replica makes every replica refuse the tokens
// issued before it within a second, and a token that another replica
// issues after it is good everywhere.
func TestPasswordChangeReachesEveryReplica(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		replica := storetest.Replica(t, db)
		tokensA, err := auth.NewTokens(ctx, db, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		defer tokensA.Close()
		tokensB, err := auth.NewTokens(ctx, replica, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		defer tokensB.Close()
		a := auth.NewAccounts(db, tokensA)
		b := auth.NewAccounts(replica, tokensB)
		old, err := a.SignUp(ctx, "correct horse battery")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tokensB.Verify(ctx, old); err != nil {
			t.Fatalf("replica B refuses a good token: %v", err)
		}

		if err := a.ChangePassword(ctx, "correct horse battery", "staple battery horse"); err != nil {
			t.Fatal(err)
		}
		changed := time.Now()
		if _, err := tokensA.Verify(ctx, old); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("replica A after the change: %v, want ErrInvalidToken", err)
		}
		for {
			_, err := tokensB.Verify(ctx, old)
			if errors.Is(err, auth.ErrInvalidToken) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(changed) > time.Second {
				t.Fatal("replica B still accepts the old token a second after the password change")
			}
			time.Sleep(5 * time.Millisecond) // polling the condition, not waiting for it
		}
		t.Logf("replica B refused the old token %s after the change", time.Since(changed).Round(time.Millisecond))

		fresh, err := b.SignIn(ctx, "staple battery horse")
		if err != nil {
			t.Fatal(err)
		}
		for name, tokens := range map[string]*auth.Tokens{"A": tokensA, "B": tokensB} {
			if _, err := tokens.Verify(ctx, fresh); err != nil {
				t.Fatalf("replica %s refuses a token issued after the change: %v", name, err)
			}
		}
	})
}
