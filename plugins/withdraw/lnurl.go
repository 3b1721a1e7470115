package withdraw

import (
	"errors"
	"strings"

	"github.com/hearthwallet/hearth/host"
)

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
