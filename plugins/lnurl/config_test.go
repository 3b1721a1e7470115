package lnurl_test

import (
	"testing"

	"github.com/hearthwallet/hearth/plugins/lnurl"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg lnurl.Config
		ok  bool
	}{
		{lnurl.Config{}, true},
		{lnurl.Config{Domain: "example.com", PublicURL: "https://pay.example.com/"}, true},
		{lnurl.Config{Domain: "hearth.test:8443", PublicURL: "https://hearth.test:8443"}, true},
		{lnurl.Config{Domain: "https://example.com"}, false},
		{lnurl.Config{Domain: "a@example.com"}, false},
		{lnurl.Config{Domain: "example.com/x"}, false},
		{lnurl.Config{PublicURL: "example.com"}, false},
		{lnurl.Config{PublicURL: "ftp://example.com"}, false},
		{lnurl.Config{PublicURL: "https://example.com/?a=b"}, false},
		{lnurl.Config{MinSendableMsat: 5000, MaxSendableMsat: 4000}, false},
	} {
		if err := c.cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: %v, want ok %v", c.cfg, err, c.ok)
		}
	}
}
