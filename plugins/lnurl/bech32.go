package lnurl

import (
	"encoding/hex"
	"errors"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/hearthwallet/hearth/lib/lud01"
)

// decodeLNURL decodes a LUD-01 bech32 LNURL (lnurl1…) into its URL.
func decodeLNURL(s string) (string, error) { return lud01.Decode(s) }

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
func EncodeLNURL(rawURL string) (string, error) { return lud01.Encode(rawURL) }
