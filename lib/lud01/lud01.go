// Package lud01 encodes and decodes LUD-01's bech32 LNURL: a URL as the
// bech32 of its bytes under the prefix "lnurl", longer than bech32's 90
// characters (so the limit is not applied).
package lud01

import (
	"errors"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"
)

// Encode encodes rawURL as an LNURL, in upper case (as QR codes carry
// it).
func Encode(rawURL string) (string, error) {
	data, err := bech32.ConvertBits([]byte(rawURL), 8, 5, true)
	if err != nil {
		return "", err
	}
	s, err := bech32.Encode("lnurl", data)
	if err != nil {
		return "", err
	}
	return strings.ToUpper(s), nil
}

// Decode decodes an LNURL (lnurl1…, either case) into its URL.
func Decode(s string) (string, error) {
	hrp, data, err := bech32.DecodeNoLimit(strings.ToLower(s))
	if err != nil {
		return "", err
	}
	if hrp != "lnurl" {
		return "", errors.New("not an lnurl")
	}
	b, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
