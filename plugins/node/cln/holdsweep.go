package cln

import (
	"context"
	"encoding/json"
	"log"
	"time"
)

// What the guard plugin keeps in lightningd's datastore does not stay
// there for ever: the terms of a hold invoice long finished, and the
// records of a keysend long credited, are deleted.

// datastoreKeep is how long after a hold invoice's expiry its finished
// terms stay, and a received keysend's records: longer than any HTLC of
// the invoice can be held (2,016 blocks, some 14 days, from a payment
// before its expiry), and than a Hearth is expected to be away before it
// reads a keysend's records.
const datastoreKeep = 30 * 24 * time.Hour

// sweepEvery is how often the plugin sweeps, besides at its start.
const sweepEvery = 24 * time.Hour

// sweepLoop sweeps now and every sweepEvery, for as long as the plugin
// runs.
func (h *holder) sweepLoop() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := h.sweep(ctx, time.Now()); err != nil {
			log.Printf("hearth invoice guard: sweeping the datastore: %v", err)
		}
		cancel()
		time.Sleep(sweepEvery) // a day between sweeps; nothing waits on them
	}
}

// sweep deletes the terms of the hold invoices finished (settled,
// cancelled, or expired unpaid) that expired datastoreKeep before now, and
// the keysend records kept longer than that.
func (h *holder) sweep(ctx context.Context, now time.Time) error {
	var holds listdatastoreResponse
	if err := h.node.call(ctx, listdatastoreRequest{Key: []string{"hearth", "hold"}}, &holds); err != nil {
		return err
	}
	for _, d := range holds.Datastore {
		if d.String == nil || len(d.Key) != 3 {
			continue
		}
		rec, err := decodeHoldRecord(*d.String)
		if err != nil || rec.State == holdOpen && rec.Accepted || now.Before(time.Unix(rec.ExpiresAt, 0).Add(datastoreKeep)) {
			continue
		}
		if err := h.forget(ctx, d.Key); err != nil {
			return err
		}
	}
	var kept listdatastoreResponse
	if err := h.node.call(ctx, listdatastoreRequest{Key: []string{"hearth", "keysend-records"}}, &kept); err != nil {
		return err
	}
	for _, d := range kept.Datastore {
		var k keptRecords
		if d.String == nil || len(d.Key) != 3 || json.Unmarshal([]byte(*d.String), &k) != nil ||
			now.Before(time.Unix(k.At, 0).Add(datastoreKeep)) {
			continue
		}
		if err := h.forget(ctx, d.Key); err != nil {
			return err
		}
	}
	return nil
}

// forget deletes key from the datastore, and a hold invoice of it from
// memory.
func (h *holder) forget(ctx context.Context, key []string) error {
	if err := h.node.call(ctx, deldatastoreRequest{Key: key}, nil); err != nil {
		return err
	}
	h.mu.Lock()
	delete(h.holds, key[2])
	h.mu.Unlock()
	return nil
}
