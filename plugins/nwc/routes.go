package nwc

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// CreateRequest makes a connection of the caller's wallet.
type CreateRequest struct {
	Name *string `json:"name"`
	// Methods the app may call, and "notifications" to be sent them;
	// every one when absent.
	Methods   []string     `json:"methods,omitempty"`
	Budget    *budget.Spec `json:"budget,omitempty"`
	ExpiresAt *time.Time   `json:"expires_at,omitempty"`
	// Pubkey is the app's own public key (64 hex): no secret is made, and
	// the answer carries none.
	Pubkey *string `json:"pubkey,omitempty"`
	// Walletauth is an app's nostr+walletauth:// URI (NWA): the connection
	// is made for its key, with what it asks for.
	Walletauth *string `json:"walletauth,omitempty"`
	// Authorization is the query of an app's authorization request at
	// /apps/new (@getalby/sdk's getAuthorizationUrl): the same, with the
	// server's relays when it names none.
	Authorization *string `json:"authorization,omitempty"`
	// Isolated (the admin's) makes the app a wallet of its own, a
	// sub-wallet with its own balance, instead of connecting a wallet.
	Isolated bool `json:"isolated,omitempty"`
}

// AdminCreateRequest makes a connection of any wallet.
type AdminCreateRequest struct {
	WalletID *string `json:"wallet_id"`
	CreateRequest
}

// Connection is an NWC connection as the API shows it; URI only in the
// answer to its creation.
type Connection struct {
	ID       string `json:"id"`
	WalletID string `json:"wallet_id"`
	Name     string `json:"name"`
	Pubkey   string `json:"pubkey"`
	// WalletPubkey is the key the app talks to: the connection's own, or
	// the shared service key of a connection made before keys per
	// connection.
	WalletPubkey string         `json:"wallet_pubkey"`
	Relays       []string       `json:"relays"`
	Methods      []string       `json:"methods"`
	Budget       *budget.Status `json:"budget,omitempty"`
	ExpiresAt    *time.Time     `json:"expires_at,omitempty"`
	CreatedAt    time.Time      `json:"created_at"`
	LastUsedAt   *time.Time     `json:"last_used_at,omitempty"`
	// Lud16 is the wallet's Lightning Address, in the answer to a
	// creation.
	Lud16 string `json:"lud16,omitempty"`
	// URI is the nostr+walletconnect URI with the app's secret, in the
	// answer to a creation that made the secret.
	URI string `json:"uri,omitempty"`
}

// The errors of the routes.
var (
	ErrInvalid  = fault.New(fault.Unprocessable, "invalid_nwc_connection", "Invalid NWC connection request")
	ErrDisabled = fault.New(fault.Unprocessable, "nwc_disabled", "Nostr Wallet Connect is off: the server has no [nwc] relays")
	ErrNotFound = fault.New(fault.NotFound, "not_found", "NWC connection not found")
)

const maxName = 100

func (p *Plugin) routes() []host.BuiltinRoute {
	mine, anyWallet := host.Mine, host.AnyWallet
	listQuery := host.ListQuery
	return []host.BuiltinRoute{
		{Method: "POST", Path: "/v1/me/nwc/connections", Access: host.User, Scope: auth.WriteAPIKey, Status: http.StatusCreated,
			Summary: "Connect an app to the caller's wallet over Nostr Wallet Connect: a URI with a secret made here (returned once), the app's own pubkey, or its nostr+walletauth URI",
			Body:    CreateRequest{}, Resp: Connection{}, Handle: p.createMine},
		{Method: "POST", Path: "/v1/me/nwc/walletauth", Access: host.User, Scope: auth.ReadAPIKey, Status: http.StatusOK,
			Summary: "Read what an app's nostr+walletauth URI asks for, as a connection would be made of it (nothing is made)",
			Body:    WalletAuthRequest{}, Resp: WalletAuthAsk{}, Handle: p.previewWalletauth},
		{Method: "GET", Path: "/v1/me/nwc/connections", Access: host.User, Scope: auth.ReadAPIKey, Status: http.StatusOK,
			Summary: "List the caller's NWC connections, with their budgets' use", Query: listQuery, Resp: []Connection{}, Handle: mine(p.list)},
		{Method: "GET", Path: "/v1/me/nwc/connections/{id}", Access: host.User, Scope: auth.ReadAPIKey, Status: http.StatusOK,
			Summary: "Read one of the caller's NWC connections", Resp: Connection{}, Handle: mine(p.get)},
		{Method: "PATCH", Path: "/v1/me/nwc/connections/{id}", Access: host.User, Scope: auth.WriteAPIKey, Status: http.StatusOK,
			Summary: "Change one of the caller's NWC connections: name, methods, budget (null removes it; what the period used stays used), expires_at (null removes it)",
			Body:    ChangeRequest{}, Resp: Connection{}, Handle: mine(p.change)},
		{Method: "DELETE", Path: "/v1/me/nwc/connections/{id}", Access: host.User, Scope: auth.WriteAPIKey, Status: http.StatusNoContent,
			Summary: "Revoke one of the caller's NWC connections: its app is refused at once", Handle: mine(p.delete)},

		{Method: "POST", Path: "/v1/nwc/connections", Access: host.Admin, Scope: auth.WriteAPIKey, Status: http.StatusCreated,
			Summary: "Connect an app to any wallet (wallet_id); the connection URI is returned once",
			Body:    AdminCreateRequest{}, Resp: Connection{}, Handle: p.createAny},
		{Method: "GET", Path: "/v1/nwc/connections", Access: host.Admin, Scope: auth.ReadAPIKey, Status: http.StatusOK,
			Summary: "List the NWC connections of every wallet, or of wallet_id", Query: append([]string{"wallet_id"}, listQuery...),
			Resp: []Connection{}, Handle: p.listAny},
		{Method: "GET", Path: "/v1/nwc/connections/{id}", Access: host.Admin, Scope: auth.ReadAPIKey, Status: http.StatusOK,
			Summary: "Read any NWC connection", Resp: Connection{}, Handle: anyWallet(p.get)},
		{Method: "PATCH", Path: "/v1/nwc/connections/{id}", Access: host.Admin, Scope: auth.WriteAPIKey, Status: http.StatusOK,
			Summary: "Change any NWC connection: name, methods, budget, expires_at", Body: ChangeRequest{}, Resp: Connection{}, Handle: anyWallet(p.change)},
		{Method: "DELETE", Path: "/v1/nwc/connections/{id}", Access: host.Admin, Scope: auth.WriteAPIKey, Status: http.StatusNoContent,
			Summary: "Revoke any NWC connection", Handle: anyWallet(p.delete)},
	}
}

func (p *Plugin) createMine(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	return p.create(ctx, req.Caller, "", req.Body.(*CreateRequest))
}

func (p *Plugin) createAny(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	in := req.Body.(*AdminCreateRequest)
	if in.WalletID == nil && in.Isolated {
		return p.create(ctx, req.Caller, "", &in.CreateRequest)
	}
	if in.WalletID == nil {
		return nil, fault.Invalidf("wallet_id is required (or isolated, for a wallet of its own)")
	}
	id, err := host.ParseUUID(*in.WalletID, "wallet_id")
	if err != nil {
		return nil, err
	}
	return p.create(ctx, req.Caller, id, &in.CreateRequest)
}

// create makes a connection of a name and methods, of the app's own key
// (pubkey), or of an app's nostr+walletauth URI.
func (p *Plugin) create(ctx context.Context, caller *host.Principal, walletID string, in *CreateRequest) (any, error) {
	if len(p.cfg.Relays) == 0 {
		return nil, ErrDisabled
	}
	if in.Walletauth != nil || in.Authorization != nil {
		return p.createFromWalletauth(ctx, caller, walletID, in)
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" || utf8.RuneCountInString(*in.Name) > maxName {
		return nil, ErrInvalid.Reasonf("name must have 1 to %d characters", maxName)
	}
	pr := pairing{name: strings.TrimSpace(*in.Name), methods: in.Methods, budget: in.Budget, expiresAt: in.ExpiresAt,
		isolated: in.Isolated}
	if in.Pubkey != nil {
		pk, err := appPubkey("pubkey", *in.Pubkey)
		if err != nil {
			return nil, err
		}
		pr.appPubkey = pk
	}
	return p.pair(ctx, caller, walletID, pr)
}

// methodsOf checks the requested methods (every one when none) and
// returns them with the permissions they imply.
func methodsOf(req []string) (ms, perms []string, err error) {
	if len(req) == 0 {
		req = append(append([]string{}, methodOrder...), notifications)
	}
	seen := map[string]bool{}
	for _, m := range req {
		scopes, ok := scopesOf(m)
		if !ok {
			return nil, nil, ErrInvalid.Reasonf("unknown method %q: expected some of %s, %s", m,
				strings.Join(methodOrder, ", "), notifications)
		}
		if seen[m] {
			continue
		}
		seen[m] = true
		ms = append(ms, m)
		for _, s := range scopes {
			if !seen["scope "+s] {
				seen["scope "+s] = true
				perms = append(perms, s)
			}
		}
	}
	return ms, perms, nil
}

func (p *Plugin) list(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	pg, err := req.Page()
	if err != nil {
		return nil, err
	}
	rows, err := p.connections(ctx, walletID, pg)
	if err != nil {
		return nil, err
	}
	out := make([]*Connection, 0, len(rows))
	for i := range rows {
		out = append(out, p.show(ctx, &rows[i]))
	}
	return host.List(pg, out, func(c **Connection) store.Cursor { return store.Cursor{CreatedAt: (*c).CreatedAt, ID: (*c).ID} }), nil
}

func (p *Plugin) listAny(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	id, err := req.QueryUUID("wallet_id")
	if err != nil {
		return nil, err
	}
	return p.list(ctx, req, id)
}

func (p *Plugin) get(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	id, err := req.PathUUID("id")
	if err != nil {
		return nil, err
	}
	row, err := p.connection(ctx, walletID, id)
	if err == errNoConnection {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return p.show(ctx, row), nil
}

// delete revokes the connection and its delegation: a request of its key
// is UNAUTHORIZED from then on.
func (p *Plugin) delete(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	id, err := req.PathUUID("id")
	if err != nil {
		return nil, err
	}
	ok, err := p.revokeConnection(ctx, walletID, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNotFound
	}
	if err := p.host.RevokeDelegation(ctx, id); err != nil {
		p.log.WarnContext(ctx, "nwc: revoking a connection's delegation", "err", err)
	}
	p.relays.follow(ctx) // its info event deleted, its requests still answered UNAUTHORIZED
	return nil, nil
}

// show is row with its delegation's budget and expiry.
func (p *Plugin) show(ctx context.Context, row *connRow) *Connection {
	d, err := p.host.Delegation(ctx, row.ID)
	if err != nil {
		d = nil // expired: shown without its budget
	}
	return p.present(row, d)
}

func (p *Plugin) present(row *connRow, d *host.Delegation) *Connection {
	c := &Connection{ID: row.ID, WalletID: row.WalletID, Name: row.Name, Pubkey: row.Pubkey,
		WalletPubkey: p.walletPubkeyOf(row), Relays: p.relaysOf(row), Methods: row.methods(),
		CreatedAt: row.CreatedAt, LastUsedAt: row.LastUsedAt}
	if d != nil {
		c.Budget, c.ExpiresAt = d.Budget, d.ExpiresAt
	}
	return c
}
