package cln_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/lightningnetwork/lnd/zpay32"

	"github.com/hearthwallet/hearth/plugins/node/cln/clntest"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// The double cannot drift from lightningd: every method the backend calls
// is called on both with the same kind of request, and every field of the
// double's answer, at any depth, is in the real node's answer with the
// same JSON type. (Fields the double leaves out are allowed: it answers
// what the schemas require and the backend reads.) A real field renamed in
// a release, as getroutes' hops were in v25, fails here.
func TestDoubleAnswersAsLightningd(t *testing.T) {
	net := network.Get(t)
	double := clntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	real := &side{t: t, path: net.Hearth.RPCPath(), pubkey: net.Hearth.Pubkey}
	fake := &side{t: t, path: double.Path(), pubkey: double.Pubkey()}
	// Each side's outside payee: the lnd peer, the double's scripted peer.
	realPeerInvoice := func(msat int64) string {
		bolt11, _, err := net.LND.AddInvoice(ctx, msat, "shape")
		if err != nil {
			t.Fatal(err)
		}
		return bolt11
	}
	fakePeerInvoice := func(msat int64) string {
		bolt11, _, err := double.PeerInvoice(msat, "shape", clntest.Settle)
		if err != nil {
			t.Fatal(err)
		}
		return bolt11
	}
	for _, s := range []struct {
		side        *side
		peerInvoice func(int64) string
	}{{real, realPeerInvoice}, {fake, fakePeerInvoice}} {
		sd := s.side
		sd.call(ctx, "getinfo", nil)
		sd.call(ctx, "listfunds", nil)
		sd.call(ctx, "listtransactions", nil)
		for _, typ := range []string{"bech32", "p2tr"} {
			sd.callAs(ctx, "newaddr/"+typ, "newaddr", map[string]any{"addresstype": typ})
		}
		preimage := randomHex(t)
		inv := sd.call(ctx, "invoice", map[string]any{"amount_msat": 12_345, "label": "shape:" + preimage,
			"description": "shape", "expiry": 3600, "preimage": preimage})
		hash := inv["payment_hash"].(string)
		sd.call(ctx, "listinvoices", map[string]any{"payment_hash": hash})
		sd.call(ctx, "delinvoice", map[string]any{"label": "shape:" + preimage, "status": "unpaid"})
		key := []string{"hearth", "shape", preimage[:8]}
		sd.call(ctx, "datastore", map[string]any{"key": key, "string": "psbt", "mode": "create-or-replace"})
		sd.call(ctx, "listdatastore", map[string]any{"key": key})
		sd.call(ctx, "deldatastore", map[string]any{"key": key})
		sd.call(ctx, "wait", map[string]any{"subsystem": "invoices", "indexname": "created", "nextvalue": 0})
		sd.call(ctx, "waitblockheight", map[string]any{"blockheight": 1})

		bolt11 := s.peerInvoice(20_000)
		dec, err := zpay32.Decode(bolt11, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		sd.call(ctx, "getroutes", map[string]any{"source": sd.pubkey, "destination": hex.EncodeToString(dec.Destination.SerializeCompressed()),
			"amount_msat": 20_000, "layers": []string{"auto.localchans", "auto.sourcefree"}, "maxfee_msat": 20_000, "final_cltv": 18})
		sd.call(ctx, "xpay", map[string]any{"invstring": bolt11, "maxfee": 5_000, "retry_for": 30})
		payHash := hex.EncodeToString(dec.PaymentHash[:])
		sd.call(ctx, "listpays", map[string]any{"payment_hash": payHash})
		sd.call(ctx, "listsendpays", map[string]any{"payment_hash": payHash})

		addr := sd.call(ctx, "newaddr", map[string]any{"addresstype": "bech32"})["bech32"].(string)
		prep := sd.call(ctx, "txprepare", map[string]any{"outputs": []map[string]any{{addr: 50_000}}, "feerate": "2000perkw"})
		sd.call(ctx, "unreserveinputs", map[string]any{"psbt": prep["psbt"]})
	}
	names := make([]string, 0, len(fake.answers))
	for name := range fake.answers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		got, ok := real.answers[name]
		if !ok {
			t.Errorf("%s: the real node was not asked", name)
			continue
		}
		for _, d := range drift(name, fake.answers[name], got) {
			t.Errorf("the double drifted from lightningd: %s", d)
		}
	}
}

// side is one node of the comparison and its answers by call name.
type side struct {
	t       *testing.T
	path    string
	pubkey  string
	answers map[string]any
}

func (s *side) call(ctx context.Context, method string, params map[string]any) map[string]any {
	return s.callAs(ctx, method, method, params)
}

// callAs runs method and keeps its answer under name.
func (s *side) callAs(ctx context.Context, name, method string, params map[string]any) map[string]any {
	s.t.Helper()
	var raw json.RawMessage
	if err := regtest.CallSocket(ctx, s.path, &raw, method, params); err != nil {
		s.t.Fatalf("%s on %s: %v", name, s.path, err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		s.t.Fatal(err)
	}
	if s.answers == nil {
		s.answers = map[string]any{}
	}
	s.answers[name] = v
	return v
}

// drift lists the fields of fake that real lacks or types otherwise.
// Arrays compare each fake element with the union of real's elements.
func drift(at string, fake, real any) []string {
	switch f := fake.(type) {
	case map[string]any:
		r, ok := real.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: an object, lightningd answers %s", at, kind(real))}
		}
		var out []string
		for k, fv := range f {
			rv, ok := r[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: lightningd answers no such field", at, k))
				continue
			}
			out = append(out, drift(at+"."+k, fv, rv)...)
		}
		return out
	case []any:
		r, ok := real.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: an array, lightningd answers %s", at, kind(real))}
		}
		if len(r) == 0 {
			return nil // nothing to compare with
		}
		union := union(r)
		var out []string
		for _, fv := range f {
			out = append(out, drift(at+"[]", fv, union)...)
		}
		return out
	}
	if kind(fake) != kind(real) {
		return []string{fmt.Sprintf("%s: %s, lightningd answers %s", at, kind(fake), kind(real))}
	}
	return nil
}

// union merges the fields of an array's objects (the first seen of each);
// an array of other values is represented by its first.
func union(elems []any) any {
	m := map[string]any{}
	for _, e := range elems {
		o, ok := e.(map[string]any)
		if !ok {
			return elems[0]
		}
		for k, v := range o {
			if _, seen := m[k]; !seen {
				m[k] = v
			}
		}
	}
	return m
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func randomHex(t *testing.T) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}
