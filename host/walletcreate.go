package host

import (
	"context"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/wallet"
)

// CreateWallet makes a wallet for userID, a user who has none yet, as the
// admin's POST /v1/wallets does: only while the plugin serves one of its
// authenticated routes for the admin (wallet:create, and the admin's
// write:wallet within the grant). A user that has a wallet already is
// wallet.ErrExists.
func (c *Caller) CreateWallet(ctx context.Context, userID string, label *string) (*wallet.Wallet, error) {
	if err := c.allowCap(ctx, WalletCreate, "create_wallet"); err != nil {
		return nil, err
	}
	if c.caller == nil || !c.caller.Admin {
		return nil, c.api.refuse(ctx, c.p, "create_wallet", "only while serving a route for the admin")
	}
	if err := c.allow(ctx, need{scope: auth.WriteWallet, what: "create_wallet"}); err != nil {
		return nil, err
	}
	return c.api.wallets.Create(ctx, userID, label)
}

// The host function of wallet:create (ABI hearth_v2): what a WebAssembly
// plugin serving a route for the admin calls, as a built-in calls
// Caller.CreateWallet.
func init() {
	ops["create_wallet"] = func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			UserID string  `json:"user_id"`
			Label  *string `json:"label"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return c.CreateWallet(ctx, in.UserID, in.Label)
	}
	v2Only["create_wallet"] = true
}
