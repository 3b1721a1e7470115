package nwc

import (
	"context"
	"encoding/json"
	"slices"
)

// alwaysAnswered are the methods every connection is answered, granted
// them or not: what the wallet is and what the app may spend. get_info
// reads the node's details only for a connection granted it.
var alwaysAnswered = map[string]bool{"get_info": true, "get_budget": true}

// getInfo answers the connection's methods and notifications, the wallet's
// Lightning Address (lud16) when the connection may read the wallet, and,
// granted get_info, the node's alias, pubkey, network and block.
func getInfo(ctx context.Context, c *call, _ json.RawMessage) []reply {
	out := map[string]any{"alias": "Hearth", "color": "#e4572e", "pubkey": "", "network": "",
		"block_height": 0, "block_hash": "", "methods": c.conn.served()}
	if c.conn.allows(notifications) {
		out["notifications"] = notificationTypes
	}
	if lud16 := c.lud16(ctx); lud16 != "" {
		out["lud16"] = lud16
	}
	if !c.conn.allows("get_info") || c.p.nodeInfo == nil {
		return one(out, nil)
	}
	info, err := c.p.nodeInfo(ctx)
	if err != nil {
		c.p.log.WarnContext(ctx, "nwc: reading the node's info for get_info", "err", err)
		return one(out, nil)
	}
	out["pubkey"], out["block_height"], out["block_hash"] = info.Pubkey, info.BlockHeight, info.BlockHash
	out["network"] = nip47Network(info.Network)
	if info.Alias != "" {
		out["alias"] = info.Alias
	}
	return one(out, nil)
}

// lud16 is the wallet's Lightning Address, when it has one and the
// connection may read the wallet.
func (c *call) lud16(ctx context.Context) string {
	if !slices.ContainsFunc(c.conn.methods(), readsWallet) {
		return ""
	}
	w, err := c.c.Wallet(ctx)
	if err != nil || w.LnAddress == nil {
		return ""
	}
	return *w.LnAddress
}

// readsWallet reports whether method m grants reading the wallet
// (read:wallet, as methods says: a lookup there would be an
// initialization cycle, methods holding getInfo).
func readsWallet(m string) bool {
	return m == "get_balance" || m == "get_info" || m == "get_budget"
}

// nip47Network names a node's network as NIP-47 does.
func nip47Network(n string) string {
	switch n {
	case "bitcoin", "main", "mainnet":
		return "mainnet"
	}
	return n
}
