package host

import (
	"context"

	"github.com/hearthwallet/hearth/core/ledger"
)

// KeysendRead reads the keysend address of any wallet
// (core/ledger/keysendreceive.go): the node's key and the wallet's keysend
// id, which a payer puts in custom record 696969. A Lightning Address
// server publishes it (/.well-known/keysend/<username>); the first read of
// a wallet's draws its id.
const KeysendRead = "keysend:read"

// KeysendLedger is what keysend:read reaches of the ledger.
type KeysendLedger interface {
	KeysendAddressOf(ctx context.Context, walletID string) (*ledger.KeysendAddress, error)
}

// KeysendAddress returns the keysend address of walletID, any wallet
// (keysend:read). It is what the wallet hands out for anyone to pay it,
// so the capability alone grants it, no permission scope.
func (c *Caller) KeysendAddress(ctx context.Context, walletID string) (*ledger.KeysendAddress, error) {
	if err := c.allowCap(ctx, KeysendRead, "keysend_address"); err != nil {
		return nil, err
	}
	l, ok := c.api.ledger.(KeysendLedger)
	if !ok {
		return nil, callErrorf("unavailable", "the ledger hands out no keysend addresses")
	}
	return l.KeysendAddressOf(ctx, walletID)
}

// The ABI's host function of keysend:read (hearth_v2).
func init() {
	ops["keysend_address"] = func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			WalletID string `json:"wallet_id"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		if in.WalletID == "" {
			in.WalletID = c.walletID()
		}
		if in.WalletID == "" {
			return nil, callErrorf("invalid", "keysend_address names a wallet_id, or the plugin is bound to one")
		}
		return c.KeysendAddress(ctx, in.WalletID)
	}
	v2Only["keysend_address"] = true
}
