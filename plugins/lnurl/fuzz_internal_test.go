package lnurl

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLNURLAnswers feeds the client's parsers what an outside server may
// answer: whatever they accept holds the LUD rules the payment relies on.
func FuzzLNURLAnswers(f *testing.F) {
	f.Add(200, []byte(`{"tag":"payRequest","callback":"https://x/cb","minSendable":1000,"maxSendable":2000,"metadata":"[[\"text/plain\",\"hi\"]]","commentAllowed":-3}`))
	f.Add(200, []byte(`{"pr":"lnbcrt1","routes":[],"successAction":{"tag":"message","message":"hi"}}`))
	f.Add(200, []byte(`{"tag":"url","url":"https://x/r","description":"d"}`))
	f.Add(200, []byte(`{"tag":"aes","iv":"BwcHBwcHBwcHBwcHBwcHBw==","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA==","description":"d"}`))
	f.Add(404, []byte(`{"status":"ERROR","reason":"no such user"}`))
	f.Add(200, []byte(`[1,2`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if p, err := parsePayParams(status, body); err == nil {
			if p.MinSendable <= 0 || p.MaxSendable < p.MinSendable || p.Callback == "" || p.Tag != "payRequest" || p.CommentAllowed < 0 {
				t.Fatalf("accepted %+v", p)
			}
			var meta [][]json.RawMessage
			if json.Unmarshal([]byte(p.Metadata), &meta) != nil || !strings.Contains(p.Metadata, "text/plain") {
				t.Fatalf("accepted metadata %q", p.Metadata)
			}
			identifier(p.Metadata)
		}
		if a, err := parsePayAnswer(status, body); err == nil && (a.PR == "" || len(a.PR) > 7089 || status != 200) {
			t.Fatalf("accepted invoice %q", a.PR)
		}
		if sa, err := parseSuccessAction(body, "x", false); err == nil {
			switch sa.Tag {
			case "message":
				if sa.Message == "" || utf8.RuneCountInString(sa.Message) > maxActionText {
					t.Fatalf("accepted %+v", sa)
				}
			case "url":
				if !strings.HasPrefix(sa.URL, "https://") {
					t.Fatalf("accepted %+v", sa)
				}
			case "aes":
				sa.Decrypt(strings.Repeat("ab", 32))
				sa.Decrypt("zz")
			default:
				t.Fatalf("accepted tag %q", sa.Tag)
			}
		}
	})
}

// FuzzPaymentInput feeds the input parsers any text: what they accept is
// an http(s) URL to fetch.
func FuzzPaymentInput(f *testing.F) {
	for _, s := range []string{"alice@example.com", "lightning:Bob@Host.test:8080", "LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS",
		"lnurlp://x.test/p", "https://x.test/.well-known/lnurlp/a", "http://10.0.0.1/x", "a@b@c", "lnurl1", ""} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, private bool) {
		for _, parse := range []func(string, bool) (lnurlTarget, bool){parseAddress, parseLNURL} {
			tg, ok := parse(s, private)
			if !ok {
				continue
			}
			if !strings.HasPrefix(tg.url, "https://") && !(strings.HasPrefix(tg.url, "http://") && (private || strings.Contains(tg.url, ".onion"))) {
				t.Fatalf("%q: would fetch %q", s, tg.url)
			}
		}
	})
}
