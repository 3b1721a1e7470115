package patch_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hearthwallet/hearth/core/patch"
)

type body struct {
	Name  patch.Field[string]          `json:"name"`
	Inner patch.Field[struct{ A int }] `json:"inner"`
}

// A field left out, sent as null and sent with a value are told apart; an
// unknown member inside a value is refused.
func TestFieldThreeStates(t *testing.T) {
	t.Parallel()
	var b body
	if err := json.Unmarshal([]byte(`{"inner":null}`), &b); err != nil {
		t.Fatal(err)
	}
	if b.Name.Set || !b.Inner.Null() {
		t.Fatalf("absent and null: %+v", b)
	}
	b = body{}
	if err := json.Unmarshal([]byte(`{"name":"x","inner":{"A":2}}`), &b); err != nil {
		t.Fatal(err)
	}
	if !b.Name.Set || *b.Name.Value != "x" || b.Inner.Value.A != 2 || b.Inner.Null() {
		t.Fatalf("values: %+v", b)
	}
	if err := json.Unmarshal([]byte(`{"inner":{"B":2}}`), &b); err == nil {
		t.Fatal("an unknown member was accepted")
	}
	if got := patch.Elem(reflect.TypeFor[patch.Field[string]]()); got != reflect.TypeFor[string]() {
		t.Fatalf("Elem = %v", got)
	}
	if got := patch.Elem(reflect.TypeFor[int]()); got != reflect.TypeFor[int]() {
		t.Fatalf("Elem of int = %v", got)
	}
}
