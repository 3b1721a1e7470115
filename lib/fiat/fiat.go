// Package fiat does the arithmetic of amounts in a currency beside
// amounts in msat, in exact decimals (math/big.Rat): no float ever holds
// a price, a rate or an amount. A rate is sat per unit of the currency,
// written as a decimal string; a price is the price of one bitcoin in the
// currency, as exchanges quote it. It imports the standard library alone.
package fiat

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// RatePlaces is how many decimal places a rate keeps: a rate is written
// once, from the median price, and every amount is converted at the rate
// as written, so a record's msat always follow from its rate.
const RatePlaces = 10

var (
	amountRE   = regexp.MustCompile(`^[0-9]{1,12}(\.[0-9]{1,8})?$`)
	currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)
)

// ErrAmount is the error of an amount that is no positive decimal.
var ErrAmount = errors.New("an amount in a currency is a positive decimal string of at most 12 digits and 8 decimals, e.g. \"12.50\"")

// Currency returns code in upper case when it has the shape of an ISO
// 4217 code (three letters), or false.
func Currency(code string) (string, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	return code, currencyRE.MatchString(code)
}

// ParseAmount reads an amount typed in a currency: a positive decimal
// string ("12.50", "5", "0.99").
func ParseAmount(s string) (*big.Rat, error) {
	if !amountRE.MatchString(s) {
		return nil, ErrAmount
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() <= 0 {
		return nil, ErrAmount
	}
	return r, nil
}

// ParseDecimal reads a non-negative decimal number as an exchange writes
// one ("97123.40000", "1e5" is refused): digits with at most one point.
func ParseDecimal(s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 || s == "." {
		return nil, fmt.Errorf("%q is no decimal number", s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q is no decimal number", s)
	}
	return r, nil
}

// satPerBTC is 10^8.
var satPerBTC = big.NewRat(100_000_000, 1)

// RateOfPrice is the rate (sat per unit) at price (units per bitcoin),
// written with RatePlaces decimals. price must be positive.
func RateOfPrice(price *big.Rat) (string, error) {
	if price.Sign() <= 0 {
		return "", errors.New("a price must be positive")
	}
	r := Format(new(big.Rat).Quo(satPerBTC, price), RatePlaces)
	return strings.TrimRight(strings.TrimRight(r, "0"), "."), nil
}

// Msat converts amount (ParseAmount's text) to msat at rate (sat per
// unit), rounded to the nearest msat, half away from zero.
func Msat(amount, rate string) (int64, error) {
	a, err := ParseAmount(amount)
	if err != nil {
		return 0, err
	}
	r, err := ParseDecimal(rate)
	if err != nil || r.Sign() <= 0 {
		return 0, fmt.Errorf("rate %q: want a positive decimal", rate)
	}
	msat := new(big.Rat).Mul(a, r)
	msat.Mul(msat, big.NewRat(1000, 1))
	n := roundHalfUp(msat)
	if !n.IsInt64() {
		return 0, ErrAmount
	}
	return n.Int64(), nil
}

// Amount converts msat to the currency at rate, written with the
// currency's decimals (Places), rounded half away from zero.
func Amount(msat int64, rate, currency string) (string, error) {
	r, err := ParseDecimal(rate)
	if err != nil || r.Sign() <= 0 {
		return "", fmt.Errorf("rate %q: want a positive decimal", rate)
	}
	v := new(big.Rat).SetFrac(big.NewInt(msat), big.NewInt(1000))
	v.Quo(v, r)
	return Format(v, Places(currency)), nil
}

// Format writes r with exactly places decimals, rounded half away from
// zero.
func Format(r *big.Rat, places int) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)
	n := roundHalfUp(new(big.Rat).Mul(r, new(big.Rat).SetInt(scale)))
	neg := n.Sign() < 0
	digits := new(big.Int).Abs(n).String()
	if places > 0 {
		if len(digits) <= places {
			digits = strings.Repeat("0", places-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-places] + "." + digits[len(digits)-places:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// roundHalfUp rounds r to the nearest integer, half away from zero.
func roundHalfUp(r *big.Rat) *big.Int {
	num, den := new(big.Int).Set(r.Num()), r.Denom()
	neg := num.Sign() < 0
	num.Abs(num)
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Lsh(m, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q
}

// zeroDecimal are the currencies of ISO 4217 with no minor unit.
var zeroDecimal = map[string]bool{"BIF": true, "CLP": true, "DJF": true, "GNF": true, "ISK": true, "JPY": true,
	"KMF": true, "KRW": true, "PYG": true, "RWF": true, "UGX": true, "UYI": true, "VND": true, "VUV": true,
	"XAF": true, "XOF": true, "XPF": true}

// threeDecimal are the currencies of ISO 4217 with three decimals.
var threeDecimal = map[string]bool{"BHD": true, "IQD": true, "JOD": true, "KWD": true, "LYD": true, "OMR": true, "TND": true}

// Places is how many decimals an amount in currency shows (its ISO 4217
// minor unit): 0 for JPY, 3 for KWD, 2 for the rest.
func Places(currency string) int {
	switch {
	case zeroDecimal[currency]:
		return 0
	case threeDecimal[currency]:
		return 3
	}
	return 2
}
