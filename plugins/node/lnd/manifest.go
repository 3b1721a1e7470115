package lnd

import "github.com/hearthwallet/hearth/host"

// Manifest describes the lnd backend as a built-in plugin: it appears in
// the plugin list when it is the node, with the keys of its [node.lnd]
// section. It is the ledger's node (node:backend) and asks nothing else
// of the host.
func Manifest() *host.Manifest {
	return &host.Manifest{Name: "node-lnd", Version: "1.0.0", ABI: host.ABIVersion,
		Description: "The lnd backend: invoices, payments and the on-chain wallet of an lnd node, over its gRPC API.",
		Scopes:      []string{host.NodeBackend},
		Config: map[string]host.ConfigField{
			"address":  {Type: "string", Required: true, Description: "lnd's gRPC host:port ([node.lnd] address)"},
			"tls_cert": {Type: "string", Required: true, Description: "path of lnd's TLS certificate ([node.lnd] tls_cert)"},
			"macaroon": {Type: "string", Required: true, Description: "path of an admin macaroon ([node.lnd] macaroon)"},
		}}
}
