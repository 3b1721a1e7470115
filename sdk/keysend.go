package sdk

// KeysendAddress is where a wallet receives keysend payments: Podcast
// Index's keysend address — the node's key, and the wallet's keysend id as
// the value of custom record 696969 (CustomKey), which a payer puts in its
// keysend so that the wallet is credited.
type KeysendAddress struct {
	Pubkey      string `json:"pubkey"`
	CustomKey   string `json:"custom_key"`
	CustomValue string `json:"custom_value"`
}

// KeysendAddressOf returns the keysend address of walletID, any wallet
// ("" for the plugin's own), for the plugin to publish (capability
// keysend:read). On a node that no other node reaches (the embedded one)
// it is an error.
func KeysendAddressOf(walletID string) (*KeysendAddress, error) {
	out := new(KeysendAddress)
	return out, call(opKeysendAddr, map[string]string{"wallet_id": walletID}, out)
}
