package onchain

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// AddressRequest asks for a deposit address of the caller's wallet.
type AddressRequest struct {
	// Type is p2wpkh, p2tr, p2sh or p2pkh; bitcoin_address_type when
	// absent.
	Type *string `json:"type,omitempty"`
}

// AdminAddressRequest asks for a deposit address of any wallet.
type AdminAddressRequest struct {
	WalletID *string `json:"wallet_id"`
	Type     *string `json:"type,omitempty"`
}

// routes are the plugin's HTTP routes: the caller's own addresses under
// /v1/me/bitcoin, and the admin's over every wallet under /v1/bitcoin.
func (p *Plugin) routes() []host.BuiltinRoute {
	mine, anyWallet := host.Mine, host.AnyWallet
	listQuery := append([]string{"used", "address_type"}, host.ListQuery...)
	return []host.BuiltinRoute{
		{Method: "POST", Path: "/v1/me/bitcoin/address", Access: host.User, Scope: auth.WriteBtcAddress, Status: http.StatusOK,
			Summary: "The caller's unused deposit address of the type (default bitcoin_address_type), else a new one",
			Body:    AddressRequest{}, Resp: Address{}, Handle: p.createMine},
		{Method: "GET", Path: "/v1/me/bitcoin/addresses", Access: host.User, Scope: auth.ReadBtcAddress, Status: http.StatusOK,
			Summary: "List the caller's deposit addresses", Query: listQuery, Resp: []Address{}, Handle: mine(p.list)},
		{Method: "GET", Path: "/v1/me/bitcoin/addresses/{id}", Access: host.User, Scope: auth.ReadBtcAddress, Status: http.StatusOK,
			Summary: "Read one of the caller's deposit addresses", Resp: Address{}, Handle: mine(p.get)},
		{Method: "DELETE", Path: "/v1/me/bitcoin/addresses/{id}", Access: host.User, Scope: auth.WriteBtcAddress, Status: http.StatusNoContent,
			Summary: "Delete one of the caller's deposit addresses: never handed out again; a deposit still arriving is credited",
			Handle:  mine(p.delete)},

		{Method: "POST", Path: "/v1/bitcoin/addresses", Access: host.Admin, Scope: auth.WriteBtcAddress, Status: http.StatusOK,
			Summary: "The unused deposit address of a wallet (wallet_id) of the type, else a new one",
			Body:    AdminAddressRequest{}, Resp: Address{}, Handle: p.createAny},
		{Method: "GET", Path: "/v1/bitcoin/addresses", Access: host.Admin, Scope: auth.ReadBtcAddress, Status: http.StatusOK,
			Summary: "List the deposit addresses of every wallet, or of wallet_id",
			Query:   append([]string{"wallet_id"}, listQuery...), Resp: []Address{}, Handle: p.listAny},
		{Method: "GET", Path: "/v1/bitcoin/addresses/{id}", Access: host.Admin, Scope: auth.ReadBtcAddress, Status: http.StatusOK,
			Summary: "Read any deposit address", Resp: Address{}, Handle: anyWallet(p.get)},
		{Method: "DELETE", Path: "/v1/bitcoin/addresses/{id}", Access: host.Admin, Scope: auth.WriteBtcAddress, Status: http.StatusNoContent,
			Summary: "Delete any deposit address", Handle: anyWallet(p.delete)},
		{Method: "POST", Path: "/v1/bitcoin/sync", Access: host.Admin, Scope: auth.WriteLnNode, Status: http.StatusOK,
			Summary: "Sync the on-chain wallet with the node now", Resp: SyncResult{}, Handle: p.sync},
	}
}

func (p *Plugin) createMine(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	return p.NewAddress(ctx, req.Caller.WalletID, req.Body.(*AddressRequest).Type)
}

func (p *Plugin) createAny(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	b := req.Body.(*AdminAddressRequest)
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
	return p.NewAddress(ctx, id, b.Type)
}

// NewAddress returns walletID's oldest unused address of the type (nil:
// the default type), else a new one from the node.
func (p *Plugin) NewAddress(ctx context.Context, walletID string, typeName *string) (*Address, error) {
	typ := p.cfg.DefaultType
	if typeName != nil {
		t, err := ledger.ParseAddressType(*typeName)
		if err != nil {
			return nil, err
		}
		typ = t
	}
	if p.chain == nil {
		return nil, ledger.ErrNoOnchain
	}
	if r, err := p.unused(ctx, walletID, typ); err != nil || r != nil {
		if r != nil {
			return r.api(), nil
		}
		return nil, err
	}
	addr, err := p.chain.NewAddress(ctx, typ)
	if err != nil {
		return nil, err
	}
	r := &addressRow{ID: uuid.NewString(), WalletID: walletID, Address: addr, AddressType: string(typ),
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	if err := p.insertAddress(ctx, r); err != nil {
		return nil, err
	}
	// Two callers at once may both have made one: both answer the oldest.
	if first, err := p.unused(ctx, walletID, typ); err == nil && first != nil {
		return first.api(), nil
	}
	return r.api(), nil
}

func (p *Plugin) list(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	if p.chain == nil {
		return nil, ledger.ErrNoOnchain
	}
	f := filter{walletID: walletID}
	q := req.Query
	switch q.Get("used") {
	case "":
	case "true":
		f.used = ptr(true)
	case "false":
		f.used = ptr(false)
	default:
		return nil, fault.Invalidf("Invalid used: expected true or false")
	}
	if v := q.Get("address_type"); v != "" {
		t, err := ledger.ParseAddressType(v)
		if err != nil {
			return nil, err
		}
		f.typ = t
	}
	page, err := req.Page()
	if err != nil {
		return nil, err
	}
	f.page = page
	rs, err := p.addresses(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]*Address, len(rs))
	for i := range rs {
		out[i] = rs[i].api()
	}
	return host.List(page, out, func(a **Address) store.Cursor { return store.Cursor{CreatedAt: (*a).CreatedAt, ID: (*a).ID} }), nil
}

func (p *Plugin) listAny(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	walletID, err := req.QueryUUID("wallet_id")
	if err != nil {
		return nil, err
	}
	return p.list(ctx, req, walletID)
}

func (p *Plugin) get(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	if p.chain == nil {
		return nil, ledger.ErrNoOnchain
	}
	id, err := host.ParseUUID(req.Params["id"], "id")
	if err != nil {
		return nil, err
	}
	r, err := p.address(ctx, id, walletID)
	if err != nil {
		return nil, err
	}
	return r.api(), nil
}

func (p *Plugin) delete(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	if p.chain == nil {
		return nil, ledger.ErrNoOnchain
	}
	id, err := host.ParseUUID(req.Params["id"], "id")
	if err != nil {
		return nil, err
	}
	return nil, p.deleteAddress(ctx, id, walletID)
}

func (p *Plugin) sync(ctx context.Context, _ *host.BuiltinRequest) (any, error) {
	return p.Sync(ctx)
}

func ptr[T any](v T) *T { return &v }
