package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// flatTextOK may only pass what the walk of encoding/json's tokens passes,
// and passes the plain bodies most requests send; the rest it leaves to
// the walk, which answers them as before (a wrong key's case, escapes,
// control characters, nested values).
func TestFlatTextOKAgreesWithTheWalk(t *testing.T) {
	t.Parallel()
	type body struct {
		Input  string  `json:"input"`
		Amount *int64  `json:"amount_msat"`
		Note   *string `json:"comment"`
		Ok     bool    `json:"ok"`
		Tags   []string
	}
	typ := reflect.TypeOf(&body{})
	cases := []struct {
		raw  string
		fast bool // taken by the fast path
	}{
		{`{"input":"lnbcrt1u1pabc"}`, true},
		{` { "input" : "x" , "amount_msat" : 1000, "comment": null, "ok": true } ` + "\n", true},
		{`{}`, true},
		{`{"input":"día: ünïcode"}`, true},
		{`{"Input":"x"}`, false},            // a case-insensitive match: the walk refuses it
		{`{"input":"a\u0000b"}`, false},     // an escaped NUL
		{`{"input":"a\nb"}`, false},         // an escape, allowed by the walk
		{"{\"input\":\"a\u0085b\"}", false}, // a C1 control character
		{"{\"input\":\"a\x7fb\"}", false},   // DEL
		{`{"Tags":["x"]}`, false},           // nested
		{`{"input":"x","unknown":1}`, false},
	}
	for _, c := range cases {
		raw := []byte(c.raw)
		dst := reflect.New(typ.Elem()).Interface()
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(dst); err != nil {
			continue // refused before checkJSON: nothing to compare
		}
		fast := flatTextOK(raw, typ)
		if fast != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.raw, fast, c.fast)
		}
		slow := walkJSON(json.NewDecoder(bytes.NewReader(raw)), typ, "")
		if fast && slow != nil {
			t.Errorf("%s: the fast path passed what the walk refuses: %v", c.raw, slow)
		}
	}
}
