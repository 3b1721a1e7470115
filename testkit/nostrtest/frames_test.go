package nostrtest

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// clientFrame is a masked client frame of opcode op carrying msg.
func clientFrame(op byte, msg string, key [4]byte) []byte {
	f := []byte{0x80 | op}
	switch n := len(msg); {
	case n < 126:
		f = append(f, 0x80|byte(n))
	case n < 1<<16:
		f = append(f, 0x80|126)
		f = binary.BigEndian.AppendUint16(f, uint16(n))
	default:
		f = append(f, 0x80|127)
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	f = append(f, key[:]...)
	for i := range len(msg) {
		f = append(f, msg[i]^key[i%4])
	}
	return f
}

// TestClientFramesMuteOnlyWhatDropsSubscriptions passes a client's frames
// through reads cut at every size: events of every length arrive as sent,
// CLOSE messages and close frames arrive muted.
func TestClientFramesMuteOnlyWhatDropsSubscriptions(t *testing.T) {
	key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
	event := func(n int) string { return `["EVENT",{"content":"` + strings.Repeat("C", n) + `"}]` }
	var sent, want bytes.Buffer
	for _, m := range []struct {
		op       byte
		msg, got string
	}{
		{0x1, event(10), event(10)},
		{0x1, `["CLOSE","sub"]`, `["XLOSE","sub"]`},
		{0x1, event(300), event(300)},
		{0x1, event(70_000), event(70_000)},
		{0x1, `["REQ","s",{}]`, `["REQ","s",{}]`},
		{0x1, `["CLOSE"`, `["XLOSE"`},
		{0x1, `[]`, `[]`},
		{0x9, "", ""},
		{0x8, "\x03\xe8", ""},
	} {
		sent.Write(clientFrame(m.op, m.msg, key))
		if m.op == 0x8 {
			want.Write(clientFrame(0x9, m.msg, key))
			continue
		}
		want.Write(clientFrame(m.op, m.got, key))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, most := range []int{1, 2, 3, 7, 64, 4096, 1 << 20} {
		src := bytes.NewReader(sent.Bytes())
		next := func(b []byte) (int, error) {
			if rng.IntN(5) == 0 {
				return 0, timeout{}
			}
			return src.Read(b[:min(len(b), 1+rng.IntN(most))])
		}
		var f clientFrames
		var got []byte
		for len(got) < want.Len() {
			b := make([]byte, 1+rng.IntN(4096))
			n, err := f.read(b, next)
			if err != nil && n > 0 {
				t.Fatalf("reads of at most %d: %d bytes with an error", most, n)
			}
			if err != nil && !isTimeout(err) {
				t.Fatalf("reads of at most %d: %v after %d of %d bytes", most, err, len(got), want.Len())
			}
			got = append(got, b[:n]...)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("reads of at most %d: the frames differ from what they should be", most)
		}
	}
}

// timeout is a read deadline's error.
type timeout struct{}

func (timeout) Error() string   { return "i/o timeout" }
func (timeout) Timeout() bool   { return true }
func (timeout) Temporary() bool { return true }

func isTimeout(err error) bool { _, ok := err.(timeout); return ok }
