package api

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strings"

	"github.com/hearthwallet/hearth/core/fault"
)

// numberError says, of a JSON number that an integer field cannot hold,
// what is wrong with it in the client's terms: out of the field's range
// (and its limit), not a whole number, or a whole number written with an
// exponent. encoding/json says only "expected number, got number …". It
// is nil for any other mismatch.
func numberError(typ *json.UnmarshalTypeError) error {
	literal, ok := strings.CutPrefix(typ.Value, "number ")
	if !ok || typ.Type == nil {
		return nil
	}
	smallest, largest, ok := integerRange(typ.Type.Kind())
	if !ok {
		return nil
	}
	// Exact for every digit written (about 3.3 bits a digit); the
	// exponent is kept apart, so 1e999999999 costs nothing.
	n, ok := new(big.Float).SetPrec(uint(4*len(literal) + 64)).SetString(literal)
	if !ok {
		return nil
	}
	switch {
	case !n.IsInt():
		return fault.Invalidf("%s: %s is not a whole number", typ.Field, literal)
	case n.Cmp(new(big.Float).SetInt(largest)) > 0:
		return fault.Invalidf("%s: %s is out of range: the largest is %s", typ.Field, literal, largest)
	case n.Cmp(new(big.Float).SetInt(smallest)) < 0:
		return fault.Invalidf("%s: %s is out of range: the smallest is %s", typ.Field, literal, smallest)
	}
	v, _ := n.Int(nil)
	return fault.Invalidf("%s: write %s as the whole number %s", typ.Field, literal, v)
}

// integerRange is the range of an integer kind.
func integerRange(k reflect.Kind) (smallest, largest *big.Int, ok bool) {
	bits := map[reflect.Kind]int{
		reflect.Int: 64, reflect.Int8: 8, reflect.Int16: 16, reflect.Int32: 32, reflect.Int64: 64,
		reflect.Uint: 64, reflect.Uint8: 8, reflect.Uint16: 16, reflect.Uint32: 32, reflect.Uint64: 64, reflect.Uintptr: 64,
	}[k]
	if bits == 0 {
		return nil, nil, false
	}
	if math.MaxInt == math.MaxInt32 && (k == reflect.Int || k == reflect.Uint || k == reflect.Uintptr) {
		bits = 32
	}
	one := big.NewInt(1)
	if k >= reflect.Uint && k <= reflect.Uintptr {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, uint(bits)), one), true
	}
	largest = new(big.Int).Sub(new(big.Int).Lsh(one, uint(bits-1)), one)
	return new(big.Int).Neg(new(big.Int).Add(largest, one)), largest, true
}
