package sdk

import (
	"bytes"
	"testing"
	"time"
)

func TestEventRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 1, 2, 3, 4, time.UTC)
	e := Event{Type: InvoiceSettled, WalletID: "w-1", ID: "i-1", At: at, Data: []byte(`{"id":"i-1","amount_msat":5}`)}
	got, err := parseEvent(EncodeEvent(e))
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != e.Type || got.WalletID != e.WalletID || got.ID != e.ID || !got.At.Equal(at) || !bytes.Equal(got.Data, e.Data) {
		t.Fatalf("round trip: %+v", got)
	}
	inv, err := got.Invoice()
	if err != nil || inv.ID != "i-1" || *inv.AmountMsat != 5 {
		t.Fatalf("invoice: %+v %v", inv, err)
	}
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte("invoice.settled w i 123\n{}"))
	f.Add([]byte("x y z\n"))
	f.Add([]byte("a b c 99999999999999999999\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := parseEvent(b)
		if err != nil {
			return
		}
		if _, err := parseEvent(EncodeEvent(e)); err != nil && e.Type != "" {
			t.Logf("re-encoding %q: %v", b, err)
		}
		dispatchEvent(b)
		dispatchHTTP(b)
	})
}
