package main

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// Amounts in a currency, in exact decimals (math/big), as Hearth keeps
// them: the page sends what was typed, the plugin adds the tip and
// rounds to the currency's decimals, and Hearth converts the total.

var amountRE = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,3})?$`)

// places is how many decimals an amount in currency has (ISO 4217's minor
// unit): 0 for the yen and its like, 3 for the dinars, else 2.
func places(currency string) int {
	switch currency {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		return 0
	case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
		return 3
	}
	return 2
}

// parseAmount reads a price or an amount typed in currency: a positive
// decimal with no more decimals than the currency has.
func parseAmount(s, currency string) (*big.Rat, error) {
	r, ok := new(big.Rat).SetString(s)
	if !amountRE.MatchString(s) || !ok || r.Sign() <= 0 {
		return nil, errors.New(`a positive amount such as "5.00"`)
	}
	if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > places(currency) {
		return nil, fmt.Errorf("%s has %d decimals", currency, places(currency))
	}
	return r, nil
}

// format writes r in currency's decimals, rounded half up (r > 0).
func format(r *big.Rat, currency string) string {
	p := places(currency)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	n := new(big.Rat).Mul(r, new(big.Rat).SetInt(scale))
	n.Add(n, big.NewRat(1, 2))
	units := new(big.Int).Quo(n.Num(), n.Denom()).String()
	if p == 0 {
		return units
	}
	units = strings.Repeat("0", max(0, p+1-len(units))) + units
	return units[:len(units)-p] + "." + units[len(units)-p:]
}
