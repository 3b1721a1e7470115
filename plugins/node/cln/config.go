package cln

import "errors"

// SectionKey is the table of the configuration the backend reads:
// cmd/hearth has config.Load decode it into a Config.
const SectionKey = "node.cln"

// Config says how to reach the node: the [node.cln] section of the
// configuration, HEARTH_NODE_CLN_* in the environment.
type Config struct {
	// RPCFile is the path of lightningd's JSON-RPC socket, usually
	// <lightning-dir>/<network>/lightning-rpc. Required. The network is
	// the node's own (getinfo).
	RPCFile string `toml:"rpc_file"`
}

// DefaultConfig is the configuration before the file and the environment.
func DefaultConfig() Config { return Config{} }

// Validate checks what a node.backend = "cln" server needs.
func (c Config) Validate() error {
	if c.RPCFile == "" {
		return errors.New("node.cln.rpc_file is required with node.backend = \"cln\"")
	}
	return nil
}
