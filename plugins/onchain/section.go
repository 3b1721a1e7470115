package onchain

import (
	"errors"

	"github.com/hearthwallet/hearth/core/ledger"
)

// SectionKey is the plugin's table of the configuration: the application
// has config.Load decode it into a Settings.
const SectionKey = "onchain"

// Settings is the plugin's section of the configuration, [onchain] (and
// HEARTH_ONCHAIN_* in the environment). The default deposit address type
// is the instance's bitcoin_address_type.
type Settings struct {
	// MinConfirmations is how many confirmations a deposit needs before
	// its wallet is credited; until then it shows as a Pending Onchain
	// invoice. Default 1.
	MinConfirmations int64 `toml:"min_confirmations"`
	// ReorgBuffer is how many blocks below its last synced height the
	// on-chain sync reads again at every start and node reconnect, so that
	// a reorganisation cannot hide a deposit. Default 6.
	ReorgBuffer int64 `toml:"reorg_buffer"`
	// TargetConf is the confirmation target, in blocks, of the fee of an
	// on-chain spend that names no fee_rate_sat_vb: the node estimates a
	// fee to be mined within it. Default 6.
	TargetConf int64 `toml:"target_conf"`
}

// DefaultSettings are the settings before the file and the environment.
func DefaultSettings() Settings { return Settings{MinConfirmations: 1, ReorgBuffer: 6, TargetConf: 6} }

// Validate checks the settings' bounds.
func (s Settings) Validate() error {
	if s.MinConfirmations < 1 || s.MinConfirmations > 1000 || s.ReorgBuffer < 1 || s.ReorgBuffer > 10_000 ||
		s.TargetConf < 1 || s.TargetConf > 1008 {
		return errors.New("onchain.min_confirmations must be between 1 and 1000, onchain.reorg_buffer between 1 and 10000, onchain.target_conf between 1 and 1008")
	}
	return nil
}

// ConfigOf is the plugin's Config of its settings and the instance's
// default address type (bitcoin_address_type).
func ConfigOf(s Settings, defaultType string) Config {
	return Config{DefaultType: ledger.AddressType(defaultType), MinConfirmations: s.MinConfirmations,
		ReorgBuffer: s.ReorgBuffer, TargetConf: int32(s.TargetConf)}
}
