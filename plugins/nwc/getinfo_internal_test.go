package nwc

import (
	"slices"
	"testing"
)

// TestReadsWalletAsMethodsSay keeps readsWallet to the methods' own
// permissions.
func TestReadsWalletAsMethodsSay(t *testing.T) {
	for name, m := range methods {
		if want := slices.Contains(m.scopes, "read:wallet"); readsWallet(name) != want {
			t.Errorf("readsWallet(%q) = %v, the method's scopes %v", name, !want, m.scopes)
		}
	}
}
