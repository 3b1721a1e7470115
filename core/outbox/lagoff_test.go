package outbox_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestLagsOfAConsumerThatIsOff: a consumer whose cursor is told it does
// not run (its feature is off) is reported Off with no lag, however far
// behind its position; told it runs again, it is reported behind as
// before.
func TestLagsOfAConsumerThatIsOff(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		f := newFixture(t, db)
		f.payInternal(t, 1000)
		head := waitHead(t, f.box, f.fundingEvent+1)
		ctx := context.Background()
		cur, err := f.box.CursorFrom(ctx, "feature", 0)
		if err != nil {
			t.Fatal(err)
		}
		lagOf := func() outbox.Lag {
			t.Helper()
			_, lags, err := f.box.Lags(ctx)
			if err != nil || len(lags) != 1 {
				t.Fatalf("Lags = %+v, %v; want the one consumer", lags, err)
			}
			return lags[0]
		}
		cur.SetRunning(false)
		if l := lagOf(); l != (outbox.Lag{Name: "feature", Off: true}) {
			t.Errorf("off: %+v, want Off and no lag", l)
		}
		cur.SetRunning(true)
		if l := lagOf(); l.Off || l.Events != head || l.Oldest.IsZero() {
			t.Errorf("running: %+v, want %d events behind", l, head)
		}
	})
}
