package sdk

import (
	"bytes"
	"testing"
	"time"
)

func TestEventRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 1, 2, 3, 4, time.UTC)
	e := NewEvent(InvoiceSettled, "w-1", "i-1", at, []byte(`{"id":"i-1","amount_msat":5}`))
	got, err := parseEvent(EncodeEvent(e))
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != e.Type || got.WalletID() != e.WalletID() || got.ID() != e.ID() || !got.At.Equal(at) || !bytes.Equal(got.Data, e.Data) {
		t.Fatalf("round trip: %+v", got)
	}
	inv, err := got.Invoice()
	if err != nil || inv.ID != "i-1" || *inv.AmountMsat != 5 {
		t.Fatalf("invoice: %+v %v", inv, err)
	}
}

func FuzzParseEvent(f *testing.F) {
	f.Add(EncodeEvent(NewEvent(InvoiceSettled, "w", "i", time.Unix(0, 123), []byte("{}"))))
	f.Add([]byte("\x03\x01\x01\x00\x01\x02\x03\x04\x05\x06\x07\x08abcde"))
	f.Add([]byte("x y z\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := parseEvent(b)
		if err != nil {
			return
		}
		again, err := parseEvent(EncodeEvent(e))
		if err != nil || again.Type != e.Type || again.ID() != e.ID() || !again.At.Equal(e.At) {
			t.Fatalf("re-encoding %q: %+v %v", b, again, err)
		}
		dispatchEvent(b)
		dispatchHTTP(b)
	})
}
