package lnurl

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"
)

// decodeLNURL decodes a LUD-01 bech32 LNURL (lnurl1…, lower case) into
// its URL. LNURLs are longer than bech32's 90 characters, so the limit is
// not applied.
func decodeLNURL(s string) (string, error) {
	hrp, data, err := bech32.DecodeNoLimit(s)
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

// decodeNpub decodes a NIP-19 npub into its 32-byte key in hex.
func decodeNpub(s string) (string, error) {
	hrp, data, err := bech32.Decode(s)
	if err != nil {
		return "", err
	}
	if hrp != "npub" {
		return "", errors.New("not an npub")
	}
	b, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		return "", err
	}
	if len(b) != 32 {
		return "", errors.New("an npub holds 32 bytes")
	}
	return hex.EncodeToString(b), nil
}

// EncodeLNURL encodes a URL as a LUD-01 bech32 LNURL, in upper case (as
// QR codes carry it).
func EncodeLNURL(rawURL string) (string, error) {
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
