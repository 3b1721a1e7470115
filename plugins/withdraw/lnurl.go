package withdraw

import (
	"errors"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"

	"github.com/hearthwallet/hearth/host"
)

// encodeLNURL encodes a URL as LUD-01's bech32 LNURL, in upper case (as QR
// codes carry it).
func encodeLNURL(rawURL string) (string, error) {
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

// lud17 is the link's URL in LUD-17's scheme: lnurlw:// in place of
// https:// (or http://, for an onion or a test instance).
func lud17(u string) string {
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "lnurlw://" + rest
	}
	return "lnurlw://" + strings.TrimPrefix(u, "http://")
}

// asCallError is errors.As for the host's call errors.
func asCallError(err error, target **host.CallError) bool { return errors.As(err, target) }
