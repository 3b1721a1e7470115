package webhooks

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
)

// maxURL bounds a webhook URL.
const maxURL = 2048

func badURL(format string, args ...any) error {
	return fault.Unprocessablef("invalid_webhook_url", "Invalid webhook URL: "+format, args...)
}

// checkURL refuses at registration what the outbound guard would refuse at
// every delivery, as far as it can be known now: another scheme than https
// (or http to a private or loopback host, when private hosts are allowed),
// credentials, a fragment, a private or loopback address when they are not
// allowed. DNS can change: the guard checks the address again on every dial.
func (p *Plugin) checkURL(ctx context.Context, raw string) (string, error) {
	if raw == "" {
		return "", fault.Invalidf("Missing required field: url")
	}
	if len(raw) > maxURL {
		return "", badURL("longer than %d bytes", maxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "", badURL("expected https://host/path")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return "", badURL("the scheme must be https, not %q", u.Scheme)
	case u.User != nil:
		return "", badURL("credentials in the URL are not allowed; authenticate the request with its signature")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "", badURL("a fragment is not allowed")
	}
	hostname := strings.ToLower(u.Hostname())
	if port := u.Port(); port != "" && (len(port) > 5 || port == "0") {
		return "", badURL("bad port %q", port)
	}
	private, known := p.isPrivateHost(ctx, hostname, u.Scheme == "http")
	switch {
	case private && !p.cfg.AllowPrivate:
		return "", badURL("%s is a private, loopback or link-local host (allowed only with plugins.allow_private_hosts)", hostname)
	case u.Scheme == "http" && !p.cfg.AllowPrivate:
		return "", badURL("the scheme must be https")
	case u.Scheme == "http" && !private:
		if !known {
			return "", badURL("plain http is allowed only to private or loopback hosts, and %s could not be resolved", hostname)
		}
		return "", badURL("plain http is allowed only to private or loopback hosts; %s is public: use https", hostname)
	}
	return u.String(), nil
}

// isPrivateHost reports whether host is private: an address literal, a
// name of the loopback ("localhost"), or, when resolve is set, a name all
// of whose addresses are private. known is false when it could not tell.
func (p *Plugin) isPrivateHost(ctx context.Context, hostname string, resolve bool) (private, known bool) {
	if ip, err := netip.ParseAddr(strings.Trim(hostname, "[]")); err == nil {
		return host.IsPrivate(ip), true
	}
	if hostname == "localhost" || strings.HasSuffix(hostname, ".localhost") {
		return true, true
	}
	if !resolve {
		return false, true
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	addrs, err := p.resolve(ctx, hostname)
	if err != nil || len(addrs) == 0 {
		return false, false
	}
	for _, a := range addrs {
		ip, err := netip.ParseAddr(a)
		if err != nil || !host.IsPrivate(ip) {
			return false, true
		}
	}
	return true, true
}

func lookupHost(ctx context.Context, h string) ([]string, error) {
	return net.DefaultResolver.LookupHost(ctx, h)
}
