package lnd

import "errors"

// SectionKey is the table of the configuration the backend reads:
// the application (app/builtins.LND) has config.Load decode it into a Config.
const SectionKey = "node.lnd"

// DefaultConfig is the configuration before the file and the environment.
func DefaultConfig() Config { return Config{Address: "localhost:10009"} }

// Validate checks what a node.backend = "lnd" server needs.
func (c Config) Validate() error {
	if c.Address == "" || c.TLSCert == "" || c.Macaroon == "" {
		return errors.New("node.lnd.address, node.lnd.tls_cert and node.lnd.macaroon are required with node.backend = \"lnd\"")
	}
	return nil
}
