package lnd

import (
	"errors"

	"github.com/hearthwallet/hearth/core/config"
)

// SectionKey is the table of the configuration the backend reads.
const SectionKey = "node.lnd"

// DefaultConfig is the configuration before the file and the environment.
func DefaultConfig() Config { return Config{Address: "localhost:10009"} }

// Section is the backend's section of the configuration, decoded into cfg
// by config.Load.
func Section(cfg *Config) config.Section { return config.Section{Key: SectionKey, Value: cfg} }

// Validate checks what a node.backend = "lnd" server needs.
func (c Config) Validate() error {
	if c.Address == "" || c.TLSCert == "" || c.Macaroon == "" {
		return errors.New("node.lnd.address, node.lnd.tls_cert and node.lnd.macaroon are required with node.backend = \"lnd\"")
	}
	return nil
}
