package cln

import (
	"errors"
	"fmt"
	"path/filepath"
)

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
	// Guard says how Hearth holds the invoice guard (guardwire.go): "auto"
	// (the default) has lightningd start Hearth's own executable as its
	// plugin when none listens; "external" only connects to one that
	// lightningd loads itself (plugin=/path/to/hearth in its config, for
	// a lightningd that cannot run the executable Hearth runs from); "off"
	// holds none, and internally settled invoices are deleted at the node
	// as fast as it takes them.
	Guard string `toml:"guard"`
	// GuardPlugin is the hearth executable lightningd starts as the guard
	// plugin with Guard "auto". Default: the executable Hearth runs from,
	// which must then be hearth itself (a program that embeds Hearth, as
	// loadbench or a test does, names a hearth binary here).
	GuardPlugin string `toml:"guard_plugin"`
	// EmergencyRecover is lightningd's emergency.recover, which a backup
	// holds when Hearth may read it: its channels' static backup,
	// encrypted with the node's hsm_secret, rewritten by lightningd on
	// every channel change. Default: emergency.recover beside RPCFile
	// (lightningd writes it into <lightning-dir>/<network>/).
	EmergencyRecover string `toml:"emergency_recover"`
}

// EmergencyRecoverPath is the path of lightningd's emergency.recover.
func (c Config) EmergencyRecoverPath() string {
	if c.EmergencyRecover != "" {
		return c.EmergencyRecover
	}
	return filepath.Join(filepath.Dir(c.RPCFile), "emergency.recover")
}

// The values of Config.Guard.
const (
	GuardAuto     = "auto"
	GuardExternal = "external"
	GuardOff      = "off"
)

// DefaultConfig is the configuration before the file and the environment.
func DefaultConfig() Config { return Config{Guard: GuardAuto} }

// Validate checks what a node.backend = "cln" server needs.
func (c Config) Validate() error {
	if c.RPCFile == "" {
		return errors.New("node.cln.rpc_file is required with node.backend = \"cln\"")
	}
	switch c.Guard {
	case "", GuardAuto, GuardExternal, GuardOff:
		return nil
	}
	return fmt.Errorf("node.cln.guard is %q: want auto, external or off", c.Guard)
}
