package auth

import (
	"encoding/json"
	"testing"
)

func TestScopeNamesRoundTrip(t *testing.T) {
	t.Parallel()
	if n := len(AllScopes.List()); n != 12 {
		t.Fatalf("AllScopes has %d scopes, want 12", n)
	}
	for _, s := range AllScopes.List() {
		got, ok := ParseScope(s.String())
		if !ok || got != s {
			t.Errorf("ParseScope(%q) = %v, %v", s.String(), got, ok)
		}
	}
	if _, ok := ParseScope("read:everything"); ok {
		t.Error("unknown scope parsed")
	}
}

func TestScopesSetOperations(t *testing.T) {
	t.Parallel()
	rw := NewScopes(ReadWallet, WriteWallet)
	if !rw.Has(ReadWallet) || rw.Has(ReadAPIKey) {
		t.Errorf("Has wrong for %v", rw.Names())
	}
	if !AllScopes.Covers(rw) || rw.Covers(AllScopes) || !rw.Covers(NewScopes(ReadWallet)) || !rw.Covers(0) {
		t.Error("Covers wrong")
	}
	b, _ := json.Marshal(rw)
	if string(b) != `["read:wallet","write:wallet"]` {
		t.Errorf("json = %s", b)
	}
	var back Scopes
	v, _ := rw.Value()
	if err := back.Scan(v); err != nil || back != rw {
		t.Errorf("Scan(Value) = %v, %v", back, err)
	}
	if err := back.Scan("read:wallet bogus"); err == nil {
		t.Error("Scan accepted an unknown scope")
	}
}
