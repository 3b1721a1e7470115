package cln

import "github.com/hearthwallet/hearth/host"

// Manifest describes the Core Lightning backend as a built-in plugin: it
// appears in the plugin list when it is the node, with the keys of its
// [node.cln] section. It is the ledger's node (node:backend) and asks
// nothing else of the host.
func Manifest() *host.Manifest {
	return &host.Manifest{Name: "node-cln", Version: "1.0.0", ABI: host.ABIVersion,
		Description: "The Core Lightning backend: invoices, payments (xpay) and the on-chain wallet of a lightningd, over its JSON-RPC socket.",
		Scopes:      []string{host.NodeBackend},
		Config: map[string]host.ConfigField{
			"rpc_file": {Type: "string", Required: true, Description: "path of lightningd's JSON-RPC socket ([node.cln] rpc_file)"},
		}}
}
