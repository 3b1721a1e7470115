package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// A plugin's events join the outbox in the order of the transactions
// that add them, among the ledger's events: a committed one is read by
// its type and wallet, one whose transaction rolls back is not, and a
// type its manifest does not emit, or data that is no JSON object, is
// refused. The registry names the types emitted among those a subscriber
// may ask for.
func TestPluginEventsJoinTheOutbox(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{})
		ctx := context.Background()
		alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
		m := &host.Manifest{Name: "tally", Version: "1.0.0", ABI: host.ABIVersion, Emits: []string{"tally.counted"}}
		p, err := e.Registry.RegisterBuiltin(m, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		c := e.Registry.API().For(p)
		emit := func(typ, subject string, data any, then error) error {
			return c.Tx(ctx, func(ctx context.Context, _ bun.Tx, emit host.Emitter) error {
				if err := emit(ctx, host.NewEvent{Type: typ, WalletID: alice.ID, SubjectID: subject, Data: data}); err != nil {
					return err
				}
				return then
			})
		}
		e.Pay(alice.ID, e.UserInvoice(bob.ID, 1000, "before").Bolt11)
		if err := emit("tally.counted", "s1", map[string]int{"n": 1}, nil); err != nil {
			t.Fatal(err)
		}
		changed := errors.New("changed its mind")
		if err := emit("tally.counted", "s2", map[string]int{"n": 2}, changed); !errors.Is(err, changed) {
			t.Fatalf("a transaction that fails after its emit: %v", err)
		}
		if err := emit("tally.other", "s3", map[string]int{}, nil); !isPermission(err) {
			t.Fatalf("a type the manifest does not emit: %v", err)
		}
		var ce *host.CallError
		if err := emit("tally.counted", "s4", []int{1}, nil); !errors.As(err, &ce) || ce.Code != "invalid" {
			t.Fatalf("data that is no JSON object: %v", err)
		}
		if _, cerr := e.Registry.API().Dispatch(ctx, p, "emit",
			[]byte(`{"type":"tally.counted","wallet_id":"`+alice.ID+`","subject_id":"s5","data":{"n":5}}`)); cerr != nil {
			t.Fatalf("the emit host function: %v", cerr)
		}
		e.Pay(alice.ID, e.UserInvoice(bob.ID, 1000, "after").Bolt11)

		var all []outbox.Event
		e.Eventually("the events read", func() bool {
			all, _, err = e.Outbox.Read(ctx, 0, outbox.Filter{WalletID: alice.ID}, 100)
			return err == nil && len(all) >= 5
		})
		var kinds []string
		for _, ev := range all {
			if ev.Type == "tally.counted" {
				kinds = append(kinds, ev.Type+" "+ev.SubjectID+" "+string(ev.Data.(json.RawMessage)))
			} else {
				kinds = append(kinds, ev.Type)
			}
		}
		// alice's funding, her payment, the two events kept, her payment
		want := []string{"invoice.settled", "payment.settled", `tally.counted s1 {"n":1}`, `tally.counted s5 {"n":5}`, "payment.settled"}
		if !slices.Equal(kinds, want) {
			t.Fatalf("alice's events %q, want %q", kinds, want)
		}
		only, _, err := e.Outbox.Read(ctx, 0, outbox.Filter{Types: []string{"tally.counted"}}, 1)
		if err != nil || len(only) != 1 || only[0].SubjectID != "s1" {
			t.Fatalf("the first tally.counted alone: %+v %v", only, err)
		}
		if bobs, _, err := e.Outbox.Read(ctx, 0, outbox.Filter{WalletID: bob.ID, Types: []string{"tally.counted"}}, 100); err != nil || len(bobs) != 0 {
			t.Fatalf("bob's tally.counted events: %+v %v", bobs, err)
		}
		if types := c.EventTypes(); !slices.Contains(types, "tally.counted") || !slices.Contains(types, "invoice.settled") {
			t.Fatalf("the event types a subscriber may ask for: %q", types)
		}
	})
}
