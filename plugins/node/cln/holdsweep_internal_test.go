package cln

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/plugins/node/cln/clntest"
)

// The sweep deletes from the datastore the terms of hold invoices finished
// (settled, cancelled, expired unpaid) 30 days past their expiry, and a
// keysend's records kept 30 days; it keeps younger ones, and the terms of
// an invoice still holding a payment however old, and anything of others.
func TestSweepForgetsWhatIsLongFinished(t *testing.T) {
	d := clntest.Start(t)
	h := &holder{node: &Node{path: d.Path()}, holds: map[string]*heldInvoice{}}
	ctx := context.Background()
	now := time.Now()
	old, young := now.Add(-31*24*time.Hour).Unix(), now.Add(-29*24*time.Hour).Unix()
	put := func(key []string, v any) {
		t.Helper()
		raw, _ := json.Marshal(v)
		if err := h.node.call(ctx, datastoreRequest{Key: key, String: string(raw), Mode: "must-create"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	put(holdKey("settled-old"), holdRecord{State: holdSettled, ExpiresAt: old})
	put(holdKey("cancelled-old"), holdRecord{State: holdCancelled, ExpiresAt: old})
	put(holdKey("unpaid-old"), holdRecord{State: holdOpen, ExpiresAt: old})
	put(holdKey("held-old"), holdRecord{State: holdOpen, Accepted: true, ExpiresAt: old})
	put(holdKey("settled-young"), holdRecord{State: holdSettled, ExpiresAt: young})
	put(keysendRecordsKey("keysend-old"), keptRecords{At: old, Records: map[string]string{"7629169": "00"}})
	put(keysendRecordsKey("keysend-young"), keptRecords{At: young, Records: map[string]string{"7629169": "00"}})
	put([]string{"hearth", "lease", "x"}, "psbt")
	h.holds["settled-old"] = &heldInvoice{hash: "settled-old"}

	if err := h.sweep(ctx, now); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, prefix := range []string{"hold", "keysend-records", "lease"} {
		var left listdatastoreResponse
		if err := h.node.call(ctx, listdatastoreRequest{Key: []string{"hearth", prefix}}, &left); err != nil {
			t.Fatal(err)
		}
		for _, e := range left.Datastore {
			keys = append(keys, e.Key[len(e.Key)-1])
		}
	}
	want := map[string]bool{"held-old": true, "settled-young": true, "keysend-young": true, "x": true}
	if len(keys) != len(want) {
		t.Fatalf("left %v, want %v", keys, want)
	}
	for _, k := range keys {
		if !want[k] {
			t.Fatalf("left %v, want %v", keys, want)
		}
	}
	if _, ok := h.holds["settled-old"]; ok {
		t.Fatal("a swept hold invoice stays in memory")
	}
}
