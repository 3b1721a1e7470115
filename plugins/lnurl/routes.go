package lnurl

import (
	"context"
	"encoding/hex"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// RegisterRequest registers the caller's address.
type RegisterRequest struct {
	// Username is the part before @: 1–64 of a-z, 0-9, '.', '_', '-'
	// (upper case is taken as lower case).
	Username    *string `json:"username"`
	AllowsNostr *bool   `json:"allows_nostr,omitempty"`
	// NostrPubkey is the owner's Nostr public key, in hex or as an npub
	// (stored as lower-case hex); required when allows_nostr is true.
	NostrPubkey *string `json:"nostr_pubkey,omitempty"`
	// AllowsKeysend publishes the address's keysend address at
	// /.well-known/keysend/<username>; false when not given.
	AllowsKeysend *bool `json:"allows_keysend,omitempty"`
}

// AdminRegisterRequest registers an address of any wallet.
type AdminRegisterRequest struct {
	WalletID      *string `json:"wallet_id"`
	Username      *string `json:"username"`
	AllowsNostr   *bool   `json:"allows_nostr,omitempty"`
	NostrPubkey   *string `json:"nostr_pubkey,omitempty"`
	AllowsKeysend *bool   `json:"allows_keysend,omitempty"`
}

// UpdateRequest changes an address; absent fields stay as they are.
type UpdateRequest struct {
	Username *string `json:"username,omitempty"`
	// Active false hides the address from LNURL and internal payments.
	Active      *bool   `json:"active,omitempty"`
	AllowsNostr *bool   `json:"allows_nostr,omitempty"`
	NostrPubkey *string `json:"nostr_pubkey,omitempty"`
	// AllowsKeysend publishes (true) or withdraws (false) the keysend
	// address.
	AllowsKeysend *bool `json:"allows_keysend,omitempty"`
}

var (
	usernameRE = regexp.MustCompile(`^[a-z0-9._-]{1,64}$`)
	pubkeyRE   = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// routes are the registration routes: the caller's own address under
// /v1/me/lightning-address, every wallet's under /v1/lightning-addresses
// (admin), and the public LNURL routes (server.go).
func (p *Plugin) routes() []host.BuiltinRoute {
	const me, all = "/v1/me/lightning-address", "/v1/lightning-addresses"
	rs := []host.BuiltinRoute{
		{Method: "POST", Path: me, Access: host.User, Scope: auth.WriteLnAddress, Status: http.StatusCreated,
			Summary: "Register the caller's Lightning Address username@domain (one per wallet; usernames unique)",
			Body:    RegisterRequest{}, Resp: Address{}, Handle: p.registerMine},
		{Method: "GET", Path: me, Access: host.User, Scope: auth.ReadLnAddress, Status: http.StatusOK,
			Summary: "The caller's Lightning Address; 404 when none", Resp: Address{},
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				return p.one(ctx, "wallet_id = ?", req.Caller.WalletID)
			}},
		{Method: "PUT", Path: me, Access: host.User, Scope: auth.WriteLnAddress, Status: http.StatusOK,
			Summary: "Change the caller's Lightning Address (username, active, nostr, keysend)", Body: UpdateRequest{}, Resp: Address{},
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				a, err := p.one(ctx, "wallet_id = ?", req.Caller.WalletID)
				if err != nil {
					return nil, err
				}
				return p.change(ctx, a, req.Body.(*UpdateRequest))
			}},
		{Method: "DELETE", Path: me, Access: host.User, Scope: auth.WriteLnAddress, Status: http.StatusNoContent,
			Summary: "Delete the caller's Lightning Address; its username is free again",
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				a, err := p.one(ctx, "wallet_id = ?", req.Caller.WalletID)
				if err != nil {
					return nil, err
				}
				return nil, p.remove(ctx, a.ID, req.Caller.WalletID)
			}},
		{Method: "POST", Path: all, Access: host.Admin, Scope: auth.WriteLnAddress, Status: http.StatusCreated,
			Summary: "Register a Lightning Address of any wallet", Body: AdminRegisterRequest{}, Resp: Address{},
			Handle: p.registerAny},
		{Method: "GET", Path: all, Access: host.Admin, Scope: auth.ReadLnAddress, Status: http.StatusOK,
			Summary: "List Lightning Addresses", Query: append([]string{"wallet_id", "username", "active"}, host.ListQuery...),
			Resp: []Address{}, Handle: p.listAll},
		{Method: "GET", Path: all + "/{id}", Access: host.Admin, Scope: auth.ReadLnAddress, Status: http.StatusOK,
			Summary: "A Lightning Address", Resp: Address{},
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				id, err := req.PathUUID("id")
				if err != nil {
					return nil, err
				}
				return p.one(ctx, "id = ?", id)
			}},
		{Method: "PUT", Path: all + "/{id}", Access: host.Admin, Scope: auth.WriteLnAddress, Status: http.StatusOK,
			Summary: "Change a Lightning Address", Body: UpdateRequest{}, Resp: Address{},
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				id, err := req.PathUUID("id")
				if err != nil {
					return nil, err
				}
				a, err := p.one(ctx, "id = ?", id)
				if err != nil {
					return nil, err
				}
				return p.change(ctx, a, req.Body.(*UpdateRequest))
			}},
		{Method: "DELETE", Path: all + "/{id}", Access: host.Admin, Scope: auth.WriteLnAddress, Status: http.StatusNoContent,
			Summary: "Delete a Lightning Address",
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				id, err := req.PathUUID("id")
				if err != nil {
					return nil, err
				}
				return nil, p.remove(ctx, id, "")
			}},
	}
	return append(rs, p.publicRoutes()...)
}

func (p *Plugin) registerMine(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	b := req.Body.(*RegisterRequest)
	return p.register(ctx, req.Caller.WalletID, b.Username, b.AllowsNostr, b.NostrPubkey, b.AllowsKeysend)
}

func (p *Plugin) registerAny(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	b := req.Body.(*AdminRegisterRequest)
	if b.WalletID == nil {
		return nil, fault.Invalidf("Missing required field: wallet_id")
	}
	id, err := host.ParseUUID(*b.WalletID, "wallet_id")
	if err != nil {
		return nil, err
	}
	if p.exists != nil {
		if err := p.exists(ctx, id); err != nil {
			return nil, err
		}
	}
	return p.register(ctx, id, b.Username, b.AllowsNostr, b.NostrPubkey, b.AllowsKeysend)
}

// register makes walletID's address.
func (p *Plugin) register(ctx context.Context, walletID string, username *string, allowsNostr *bool, pubkey *string, allowsKeysend *bool) (*Address, error) {
	if username == nil {
		return nil, fault.Invalidf("Missing required field: username")
	}
	name, err := p.checkUsername(*username)
	if err != nil {
		return nil, err
	}
	a := &Address{ID: newID(), WalletID: walletID, Username: name, Active: true, CreatedAt: now()}
	if allowsNostr != nil {
		a.AllowsNostr = *allowsNostr
	}
	if allowsKeysend != nil {
		a.AllowsKeysend = *allowsKeysend
	}
	if err := setNostr(a, pubkey); err != nil {
		return nil, err
	}
	if err := p.insert(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// change applies an update to a.
func (p *Plugin) change(ctx context.Context, a *Address, u *UpdateRequest) (*Address, error) {
	if u.Username != nil {
		name, err := p.checkUsername(*u.Username)
		if err != nil {
			return nil, err
		}
		a.Username = name
	}
	if u.Active != nil {
		a.Active = *u.Active
	}
	if u.AllowsNostr != nil {
		a.AllowsNostr = *u.AllowsNostr
	}
	if u.AllowsKeysend != nil {
		a.AllowsKeysend = *u.AllowsKeysend
	}
	if err := setNostr(a, u.NostrPubkey); err != nil {
		return nil, err
	}
	t := now()
	a.UpdatedAt = &t
	if err := p.update(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// setNostr sets the public key, when given, and checks that allows_nostr
// has one.
func setNostr(a *Address, pubkey *string) error {
	if pubkey != nil {
		k := strings.ToLower(strings.TrimSpace(*pubkey))
		if strings.HasPrefix(k, "npub1") {
			h, err := decodeNpub(k)
			if err != nil {
				return fault.Unprocessablef("invalid_nostr_pubkey", "nostr_pubkey is not a valid npub: %v", err)
			}
			k = h
		}
		if !pubkeyRE.MatchString(k) || !validKey(k) {
			return fault.Unprocessablef("invalid_nostr_pubkey", "nostr_pubkey must be a 32-byte public key in hex or an npub")
		}
		a.NostrPubkey = &k
	}
	if a.AllowsNostr && a.NostrPubkey == nil {
		return fault.Unprocessablef("invalid_nostr_pubkey", "nostr_pubkey is required when allows_nostr is true")
	}
	return nil
}

// checkUsername returns username in lower case, or why it cannot be one.
func (p *Plugin) checkUsername(username string) (string, error) {
	name := strings.ToLower(username)
	if !usernameRE.MatchString(name) {
		return "", fault.Unprocessablef("invalid_username", "username must be 1 to 64 characters of a-z, 0-9, '.', '_' and '-'")
	}
	if slices.Contains(p.cfg.Reserved, name) {
		return "", fault.Unprocessablef("username_reserved", "The username %q is reserved", name)
	}
	return name, nil
}

func (p *Plugin) listAll(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	pg, err := req.Page()
	if err != nil {
		return nil, err
	}
	f := Filter{Page: pg}
	if f.WalletID, err = req.QueryUUID("wallet_id"); err != nil {
		return nil, err
	}
	q := req.Query
	if v := q.Get("username"); v != "" {
		f.Username = strings.ToLower(v)
	}
	if v := q.Get("active"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fault.Invalidf("Invalid active: expected true or false")
		}
		f.Active = &b
	}
	as, err := p.list(ctx, f)
	if err != nil {
		return nil, err
	}
	return host.List(pg, as, func(a *Address) store.Cursor { return store.Cursor{CreatedAt: a.CreatedAt, ID: a.ID} }), nil
}

// validKey reports whether hex key k is a BIP-340 public key (a point
// of the curve): clients drop zaps to any other.
func validKey(k string) bool {
	b, err := hex.DecodeString(k)
	if err != nil {
		return false
	}
	_, err = schnorr.ParsePubKey(b)
	return err == nil
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
