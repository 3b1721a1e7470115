package outbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestLagsOfLiveCursors: Lags reports the cursors in use, each with the
// events after its position and the age of the first; a cursor that
// has dealt with every event has no lag, and one whose consumer ended
// is no longer reported.
func TestLagsOfLiveCursors(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		f := newFixture(t, db)
		f.payInternal(t, 1000)
		head := waitHead(t, f.box, f.fundingEvent+1)
		ctx := context.Background()
		behind, cancel := context.WithCancel(ctx)
		if _, err := f.box.CursorFrom(behind, "behind", 0); err != nil {
			t.Fatal(err)
		}
		caught, err := f.box.CursorFrom(ctx, "caught-up", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := caught.Done(ctx, head); err != nil {
			t.Fatal(err)
		}
		got, lags, err := f.box.Lags(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != head || len(lags) != 2 {
			t.Fatalf("Lags = %d, %+v; want head %d and two consumers", got, lags, head)
		}
		b, c := lags[0], lags[1]
		if b.Name != "behind" || b.Events != head || b.Oldest.IsZero() || time.Since(b.Oldest) > time.Minute {
			t.Errorf("behind: %+v, want %d events, the first written just now", b, head)
		}
		if c.Name != "caught-up" || c.Events != 0 || !c.Oldest.IsZero() {
			t.Errorf("caught-up: %+v, want no lag", c)
		}
		cancel()
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, lags, err := f.box.Lags(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(lags) == 1 && lags[0].Name == "caught-up" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after its consumer ended: %+v, want caught-up alone", lags)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
