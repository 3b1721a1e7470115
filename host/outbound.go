package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// OutboundConfig bounds plugins' outbound HTTP.
type OutboundConfig struct {
	// AllowPrivate lets requests reach loopback, private and link-local
	// addresses. For tests only; default false.
	AllowPrivate bool
	// MaxResponseBytes caps a response body. Default 1 MiB.
	MaxResponseBytes int64
	// Timeout bounds one request, redirects included. Default 10s (and
	// never more than the plugin call's own deadline).
	Timeout time.Duration
	// MaxRedirects bounds redirects, each re-checked. Default 5.
	MaxRedirects int
	// IdlePerHost is how many idle keep-alive connections are kept per
	// host. Default 4; a client with many requests in flight to one host
	// (the event streams) keeps as many, or opens and closes one each time.
	IdlePerHost int
	// Grant, when set, is the grant of the built-in that uses the client
	// (Registry.AllowsHost): every host of Do, its redirects and the
	// dials of Client must pass it (http:any, http:outbound:<host>).
	Grant func(host string) bool
}

// OutboundRequest is a plugin's outbound HTTP request.
type OutboundRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
	// NoRedirects answers a redirect as it is instead of following it
	// (built-ins only: a webhook's POST must not turn into a GET).
	NoRedirects bool `json:"-"`
	// PlainPrivateOnly lets a plain http:// request reach private and
	// loopback addresses only (after DNS, on every dial): with
	// AllowPrivate, local receivers may do without TLS, public ones never.
	PlainPrivateOnly bool `json:"-"`
}

// OutboundResponse is its answer.
type OutboundResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
}

// Outbound is the HTTP client of plugins: only allowed hosts, on every
// redirect too; no private, loopback or link-local address after DNS (the
// checked address is the one dialled, so DNS cannot change it between check
// and use); capped response size and time.
type Outbound struct {
	cfg    OutboundConfig
	client *http.Client
}

type (
	allowKey       struct{}
	noRedirectKey  struct{}
	privateOnlyKey struct{}
)

// NewOutbound returns the guarded client.
func NewOutbound(cfg OutboundConfig) *Outbound {
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = 1 << 20
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = 5
	}
	if cfg.IdlePerHost <= 0 {
		cfg.IdlePerHost = 4
	}
	o := &Outbound{cfg: cfg}
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		Proxy: nil, // never an environment proxy: it would hide the real destination
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if g := cfg.Grant; g != nil && !g(strings.ToLower(addr)) && !g(strings.ToLower(host)) {
				return nil, fmt.Errorf("host %s is not granted to the plugin", host)
			}
			ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, fmt.Errorf("resolving %s: %w", host, err)
			}
			privateOnly := ctx.Value(privateOnlyKey{}) != nil
			for _, ip := range ips {
				if err := o.checkIP(ip); err != nil {
					return nil, fmt.Errorf("%s: %w", host, err)
				}
				if privateOnly && !isPrivate(ip) {
					return nil, fmt.Errorf("%s: %s: %w", host, ip, ErrPlainPublic)
				}
			}
			if len(ips) == 0 {
				return nil, fmt.Errorf("resolving %s: no address", host)
			}
			return dialer.DialContext(ctx, network, net.JoinHostPort(ips[0].Unmap().String(), port))
		},
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConnsPerHost:   cfg.IdlePerHost,
		IdleConnTimeout:       30 * time.Second,
	}
	o.client = &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.Context().Value(noRedirectKey{}) != nil {
				return http.ErrUseLastResponse
			}
			if len(via) >= cfg.MaxRedirects {
				return fmt.Errorf("more than %d redirects", cfg.MaxRedirects)
			}
			allowed, _ := req.Context().Value(allowKey{}).(func(string) bool)
			if err := checkURL(req.URL, allowed); err != nil {
				return fmt.Errorf("redirect refused: %w", err)
			}
			return nil
		},
	}
	return o
}

// ErrAddressRefused is a destination in a private, loopback or link-local range.
var ErrAddressRefused = errors.New("address is private, loopback or link-local")

// ErrPlainPublic is a plain http:// request (PlainPrivateOnly) to a public address.
var ErrPlainPublic = errors.New("plain http is allowed to private and loopback addresses only; use https")

func (o *Outbound) checkIP(ip netip.Addr) error {
	if o.cfg.AllowPrivate {
		return nil
	}
	if isPrivate(ip) {
		return fmt.Errorf("%s: %w", ip.Unmap(), ErrAddressRefused)
	}
	return nil
}

// Client is the guarded HTTP client itself, for protocols that begin
// with an HTTP request of their own (a websocket's handshake, to a Nostr
// relay): every connection it dials is checked as Do's are, and redirects
// are re-checked. It has no overall timeout and no response cap: the
// caller bounds both (a context, a read limit).
func (o *Outbound) Client() *http.Client { return o.client }

// AllowsPrivate reports whether the client may reach private addresses.
func (o *Outbound) AllowsPrivate() bool { return o.cfg.AllowPrivate }

// IsPrivate reports whether ip is a loopback, private, link-local,
// unspecified, multicast or shared (CGNAT) address: one the outbound
// client refuses unless AllowPrivate.
func IsPrivate(ip netip.Addr) bool { return isPrivate(ip) }

func isPrivate(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(ip) || netip.MustParsePrefix("fec0::/10").Contains(ip)
}

// requestHost returns the host[:port] a URL names, lowercased.
func requestHost(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("URL %q: want http(s)://host/…", raw)
	}
	return strings.ToLower(u.Host), nil
}

// checkURL checks a (redirect) URL's scheme and host against allowed, which
// is asked about "host:port" and then "host".
func checkURL(u *url.URL, allowed func(string) bool) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q", u.Scheme)
	}
	if u.User != nil {
		return errors.New("credentials in URL")
	}
	if allowed == nil {
		return nil
	}
	host := strings.ToLower(u.Host)
	if allowed(host) || allowed(strings.ToLower(u.Hostname())) {
		return nil
	}
	return fmt.Errorf("host %s is not granted", host)
}

// Do sends req when allowed(host) holds for its URL and every redirect.
// allowed nil is the client's Grant, and without one any public host.
func (o *Outbound) Do(ctx context.Context, allowed func(string) bool, req OutboundRequest) (*OutboundResponse, error) {
	if allowed == nil {
		allowed = o.cfg.Grant
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, callErrorf("invalid", "bad URL: %v", err)
	}
	if err := checkURL(u, allowed); err != nil {
		return nil, callErrorf(ErrPermission, "%v", err)
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	ctx = context.WithValue(ctx, allowKey{}, allowed)
	if req.NoRedirects {
		ctx = context.WithValue(ctx, noRedirectKey{}, true)
	}
	if req.PlainPrivateOnly && u.Scheme == "http" {
		ctx = context.WithValue(ctx, privateOnlyKey{}, true)
	}
	var body io.Reader
	if len(req.Body) > 0 {
		body = strings.NewReader(string(req.Body))
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, callErrorf("invalid", "bad request: %v", err)
	}
	for k, v := range req.Headers {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "Transfer-Encoding", "Connection":
			continue
		}
		hreq.Header.Set(k, v)
	}
	hreq.Header.Set("User-Agent", "hearth-plugin")
	resp, err := o.client.Do(hreq)
	if err != nil {
		return nil, callErrorf("http", "%s %s: %v", method, u.Redacted(), unwrapURLError(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, o.cfg.MaxResponseBytes+1))
	if err != nil {
		return nil, callErrorf("http", "reading response: %v", err)
	}
	if int64(len(b)) > o.cfg.MaxResponseBytes {
		return nil, callErrorf("limit", "response larger than %d bytes", o.cfg.MaxResponseBytes)
	}
	out := &OutboundResponse{Status: resp.StatusCode, Headers: map[string]string{}, Body: b}
	for k, v := range resp.Header {
		if len(v) > 0 {
			out.Headers[k] = v[0]
		}
	}
	return out, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
