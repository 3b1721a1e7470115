package lud01_test

import (
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/lib/lud01"
)

// LUD-01's own example decodes to its URL, and a URL goes there and back.
func TestEncodeDecode(t *testing.T) {
	const example = "LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS"
	u, err := lud01.Decode(example)
	if err != nil || u != "https://service.com/api?q=3fc3645b439ce8e7f2553a69e5267081d96dcd340693afabe04be7b0ccd178df" {
		t.Fatalf("LUD-01's example: %q %v", u, err)
	}
	long := "https://hearth.test/lnurlw/" + strings.Repeat("ab", 40)
	enc, err := lud01.Encode(long)
	if err != nil || !strings.HasPrefix(enc, "LNURL1") || len(enc) <= 90 {
		t.Fatalf("encoding %s: %q %v", long, enc, err)
	}
	if back, err := lud01.Decode(enc); err != nil || back != long {
		t.Errorf("round trip: %q %v", back, err)
	}
	if _, err := lud01.Decode("npub1sg6plzptd64u62a878hep2kev88swjh3tw00gjsfl8f237lmu63q0uf63m"); err == nil {
		t.Error("an npub decoded as an LNURL")
	}
}
