package auth

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
)

// Scope is one permission, such as read:wallet.
type Scope uint16

// The twelve permission scopes of the API.
const (
	ReadWallet Scope = 1 << iota
	WriteWallet
	ReadTransaction
	WriteTransaction
	ReadLnAddress
	WriteLnAddress
	ReadLnNode
	WriteLnNode
	ReadBtcAddress
	WriteBtcAddress
	ReadAPIKey
	WriteAPIKey

	scopeEnd
)

var scopeNames = [...]string{
	"read:wallet", "write:wallet",
	"read:transaction", "write:transaction",
	"read:ln_address", "write:ln_address",
	"read:ln_node", "write:ln_node",
	"read:btc_address", "write:btc_address",
	"read:api_key", "write:api_key",
}

// String returns the scope's wire name.
func (s Scope) String() string {
	if s == 0 || s >= scopeEnd || s&(s-1) != 0 {
		return fmt.Sprintf("Scope(%d)", uint16(s))
	}
	return scopeNames[bits.TrailingZeros16(uint16(s))]
}

// ParseScope returns the scope named name.
func ParseScope(name string) (Scope, bool) {
	for i, n := range scopeNames {
		if n == name {
			return Scope(1 << i), true
		}
	}
	return 0, false
}

// Scopes is a set of scopes.
type Scopes uint16

// AllScopes holds every scope; a sign-in token carries it.
const AllScopes = Scopes(scopeEnd - 1)

// NewScopes returns the set of the given scopes.
func NewScopes(ss ...Scope) Scopes {
	var set Scopes
	for _, s := range ss {
		set |= Scopes(s)
	}
	return set
}

// Has reports whether s is in the set.
func (set Scopes) Has(s Scope) bool { return set&Scopes(s) != 0 }

// Covers reports whether every scope of other is in the set.
func (set Scopes) Covers(other Scopes) bool { return other&^set == 0 }

// List returns the scopes in declaration order.
func (set Scopes) List() []Scope {
	out := make([]Scope, 0, bits.OnesCount16(uint16(set)))
	for s := Scope(1); s < scopeEnd; s <<= 1 {
		if set.Has(s) {
			out = append(out, s)
		}
	}
	return out
}

// Names returns the wire names of the scopes in declaration order.
func (set Scopes) Names() []string {
	out := make([]string, 0, bits.OnesCount16(uint16(set)))
	for _, s := range set.List() {
		out = append(out, s.String())
	}
	return out
}

// ParseScopes parses wire names; an unknown name is an error naming it.
func ParseScopes(names []string) (Scopes, error) {
	var set Scopes
	for _, n := range names {
		s, ok := ParseScope(n)
		if !ok {
			return 0, fmt.Errorf("unknown permission %q", n)
		}
		set |= Scopes(s)
	}
	return set, nil
}

// MarshalJSON writes the set as an array of names.
func (set Scopes) MarshalJSON() ([]byte, error) { return json.Marshal(set.Names()) }

// UnmarshalJSON reads an array of names; an unknown name is an error.
func (set *Scopes) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	parsed, err := ParseScopes(names)
	if err != nil {
		return err
	}
	*set = parsed
	return nil
}

// Value stores the set as space-separated names.
func (set Scopes) Value() (driver.Value, error) { return strings.Join(set.Names(), " "), nil }

// Scan reads the set from space-separated names.
func (set *Scopes) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	case nil:
	default:
		return fmt.Errorf("scanning scopes from %T", src)
	}
	parsed, err := ParseScopes(strings.Fields(s))
	if err != nil {
		return err
	}
	*set = parsed
	return nil
}
