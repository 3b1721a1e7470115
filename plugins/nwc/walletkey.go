package nwc

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	gonostr "github.com/nbd-wtf/go-nostr"
)

// connectionKeyLabel prefixes the connection's id in the derivation of its
// wallet key: HMAC-SHA256(service secret, label || id), reduced to a
// secp256k1 scalar. Nothing new is stored, so nothing new is backed up:
// the service key and the connection's id make it again.
const connectionKeyLabel = "hearth nwc connection key"

// walletSecret is the wallet key of connection id: the secret (hex) the
// service signs and encrypts with for that connection alone.
func walletSecret(serviceSecret, id string) (string, error) {
	seed, err := hex.DecodeString(serviceSecret)
	if err != nil || len(seed) != 32 {
		return "", fmt.Errorf("deriving a connection key: the service secret is not 32 bytes of hex")
	}
	for counter := byte(0); ; counter++ {
		mac := hmac.New(sha256.New, seed)
		mac.Write([]byte(connectionKeyLabel))
		mac.Write([]byte(id))
		if counter > 0 { // a zero scalar, once in 2^256: hash again
			mac.Write([]byte{counter})
		}
		var s secp256k1.ModNScalar
		s.SetByteSlice(mac.Sum(nil)) // reduced modulo the group order
		if !s.IsZero() {
			b := s.Bytes()
			return hex.EncodeToString(b[:]), nil
		}
	}
}

// walletKey is connection id's wallet key pair.
func (p *Plugin) walletKey(id string) (secret, pubkey string, err error) {
	secret, err = walletSecret(p.secretKey(), id)
	if err != nil {
		return "", "", err
	}
	pubkey, err = gonostr.GetPublicKey(secret)
	if err != nil {
		return "", "", fmt.Errorf("deriving a connection key: %w", err)
	}
	return secret, pubkey, nil
}

// secretOf is the key the service answers conn with: its own, or the
// shared service key for a connection made before keys per connection.
func (p *Plugin) secretOf(conn *connRow) (string, error) {
	if conn == nil || conn.WalletPubkey == nil {
		return p.secretKey(), nil
	}
	secret, pub, err := p.walletKey(conn.ID)
	if err != nil {
		return "", err
	}
	if pub != *conn.WalletPubkey {
		return "", fmt.Errorf("the wallet key of connection %s does not derive from the service key", conn.ID)
	}
	return secret, nil
}

// walletPubkeyOf is the wallet key an app of conn talks to.
func (p *Plugin) walletPubkeyOf(conn *connRow) string {
	if conn.WalletPubkey == nil {
		return p.ServicePubkey()
	}
	return *conn.WalletPubkey
}
