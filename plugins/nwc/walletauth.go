package nwc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
)

// walletAuth is what an app asks for when it pairs without a secret: a
// nostr+walletauth URI (NWA) read as @getalby/sdk's
// NWAClient.parseWalletAuthUrl reads it (8.0.3), or the query of an
// authorization request at /apps/new (NWCClient.getAuthorizationUrl): the
// app's key (the URI's host; pubkey), relay (repeated), request_methods
// and notification_types (space separated), name, icon, return_to,
// max_amount (sats), budget_renewal, expires_at (unix seconds), isolated
// ("true") and metadata (JSON).
type walletAuth struct {
	AppPubkey         string
	Relays            []string
	RequestMethods    []string
	NotificationTypes []string
	Name, Icon        string
	ReturnTo          string
	MaxAmountSats     *int64
	BudgetRenewal     string
	ExpiresAt         *int64
	Isolated          bool
	Metadata          json.RawMessage
	// ServerRelays: the app named no relay and takes the server's (an
	// authorization request, which never names one).
	ServerRelays bool
}

// parseWalletAuth reads an NWA URI, refusing what the SDK refuses.
func parseWalletAuth(raw string) (*walletAuth, error) {
	bad := func(format string, args ...any) error {
		return fault.Invalidf("walletauth: "+format, args...)
	}
	if !strings.HasPrefix(raw, "nostr+walletauth") {
		return nil, bad("unexpected scheme: expected nostr+walletauth:// or nostr+walletauth+<app>://")
	}
	rest := raw[strings.Index(raw, ":")+1:]
	rest = strings.TrimPrefix(rest, "//")
	u, err := url.Parse("http://" + rest)
	if err != nil {
		return nil, bad("not a URI: %v", err)
	}
	a, err := walletAuthOf(strings.ToLower(u.Host), u.Query(), "walletauth")
	if err != nil {
		return nil, err
	}
	if len(a.RequestMethods) == 0 {
		return nil, bad("no request methods found in auth string")
	}
	return a, nil
}

// parseAuthorization reads the query of an authorization request, as the
// page at /apps/new got it. An app that names no methods asks for every
// one the wallet serves and its notifications, as at Alby Hub; it names
// no relay, and gets the server's.
func parseAuthorization(query string) (*walletAuth, error) {
	q, err := url.ParseQuery(strings.TrimPrefix(query, "?"))
	if err != nil {
		return nil, fault.Invalidf("authorization: not a query: %v", err)
	}
	a, err := walletAuthOf(strings.ToLower(q.Get("pubkey")), q, "authorization")
	if err != nil {
		return nil, err
	}
	if len(a.RequestMethods) == 0 {
		for m := range methods {
			if m != notifications {
				a.RequestMethods = append(a.RequestMethods, m)
			}
		}
		sort.Strings(a.RequestMethods)
		if len(a.NotificationTypes) == 0 {
			a.NotificationTypes = notificationTypes
		}
	}
	a.ServerRelays = len(a.Relays) == 0
	return a, nil
}

// walletAuthOf reads the parameters of an app's request, its errors
// prefixed with what (walletauth, authorization).
func walletAuthOf(pubkey string, q url.Values, what string) (*walletAuth, error) {
	bad := func(format string, args ...any) error {
		return fault.Invalidf(what+": "+format, args...)
	}
	a := &walletAuth{AppPubkey: pubkey, Relays: q["relay"], Name: q.Get("name"), Icon: q.Get("icon"),
		ReturnTo: q.Get("return_to"), BudgetRenewal: q.Get("budget_renewal"), Isolated: q.Get("isolated") == "true"}
	if utf8.RuneCountInString(a.AppPubkey) != 64 {
		return nil, bad("incorrect app pubkey found in auth string")
	}
	a.RequestMethods = fieldsOf(q, "request_methods")
	a.NotificationTypes = fieldsOf(q, "notification_types")
	var err error
	if a.MaxAmountSats, err = leadingInt(q, "max_amount"); err != nil {
		return nil, bad("%v", err)
	}
	if a.ExpiresAt, err = leadingInt(q, "expires_at"); err != nil {
		return nil, bad("%v", err)
	}
	if m := q.Get("metadata"); m != "" {
		if !json.Valid([]byte(m)) {
			return nil, bad("metadata is not JSON")
		}
		a.Metadata = json.RawMessage(m)
	}
	return a, nil
}

// fieldsOf splits a space-separated parameter as the SDK does (split on
// one space), leaving out the empty words.
func fieldsOf(q url.Values, key string) []string {
	var out []string
	for _, w := range strings.Split(q.Get(key), " ") {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// leadingInt reads an integer parameter as JavaScript's parseInt does
// (the leading digits, after an optional sign); nil when absent.
func leadingInt(q url.Values, key string) (*int64, error) {
	s := strings.TrimSpace(q.Get(key))
	if s == "" {
		return nil, nil
	}
	end := 0
	if s[0] == '-' || s[0] == '+' {
		end = 1
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s is not a number: %q", key, s)
	}
	return &n, nil
}

// createFromWalletauth makes the connection an NWA URI or an authorization
// request asks for, for the app's own key, on the app's relays that the
// service uses.
func (p *Plugin) createFromWalletauth(ctx context.Context, caller *host.Principal, walletID string, in *CreateRequest) (any, error) {
	ask, err := p.askOfRequest(in.Walletauth, in.Authorization, caller != nil && caller.Admin)
	if err != nil {
		return nil, err
	}
	if ask.Refusal != "" {
		return nil, ErrInvalid.Reasonf("%s", ask.Refusal)
	}
	pr := pairing{name: ask.Name, methods: ask.Methods, appPubkey: ask.Pubkey, relays: ask.Relays, budget: ask.Budget,
		isolated: ask.Isolated}
	if ask.ExpiresAt != nil {
		t := *ask.ExpiresAt
		pr.expiresAt = &t
	}
	if in.Name != nil && strings.TrimSpace(*in.Name) != "" {
		pr.name = strings.TrimSpace(*in.Name)
	}
	if utf8.RuneCountInString(pr.name) > maxName {
		return nil, ErrInvalid.Reasonf("name must have 1 to %d characters", maxName)
	}
	if len(in.Methods) > 0 { // the user narrowed what the app asked
		pr.methods = in.Methods
	}
	if in.Budget != nil {
		pr.budget = in.Budget
	}
	if in.ExpiresAt != nil {
		pr.expiresAt = in.ExpiresAt
	}
	return p.pair(ctx, caller, walletID, pr)
}

// budgetOf is the budget an NWA URI asks for: max_amount sats, renewed as
// budget_renewal says (monthly when it says nothing, as Alby Hub does).
func budgetOf(a *walletAuth) (*budget.Spec, error) {
	if a.MaxAmountSats == nil || *a.MaxAmountSats <= 0 {
		return nil, nil
	}
	renewal := budget.Monthly
	if a.BudgetRenewal != "" {
		r, err := budget.ParseRenewal(a.BudgetRenewal)
		if err != nil {
			return nil, fault.Invalidf("walletauth: budget_renewal: %v", err)
		}
		renewal = r
	}
	if *a.MaxAmountSats > (1<<62)/1000 {
		return nil, fault.Invalidf("walletauth: max_amount is too large")
	}
	return &budget.Spec{MaxMsat: *a.MaxAmountSats * 1000, Renewal: renewal}, nil
}

// expiryOf is the expiry an NWA URI asks for.
func expiryOf(a *walletAuth) *time.Time {
	if a.ExpiresAt == nil || *a.ExpiresAt <= 0 {
		return nil
	}
	t := time.Unix(*a.ExpiresAt, 0).UTC()
	return &t
}
