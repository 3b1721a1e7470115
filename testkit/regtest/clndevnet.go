package regtest

import "path/filepath"

// What `make devnet` prints for a person to act on the Core Lightning
// network from a shell: each process's command-line client, ready to take
// a method and its arguments.

// MinerAddress is the address the network mines its blocks to: bitcoind
// has no wallet, so `bitcoin-cli generatetoaddress` needs one.
func (n *CLNNetwork) MinerAddress() string { return n.miner }

// CLI is the lightning-cli command line that speaks to the node over its
// socket: the program and its options, before a method.
func (n *CLNNode) CLI() []string {
	return []string{filepath.Join(n.bin, "lightning-cli"), "--lightning-dir=" + n.Dir, "--network=regtest"}
}

// CLI is the bitcoin-cli command line of the chain, before a method: its
// RPC port and credentials come from the data folder's bitcoin.conf.
func (b *Bitcoind) CLI() []string {
	return []string{filepath.Join(b.bin, "bitcoin-cli"), "-datadir=" + b.Dir}
}

// CLI is the lncli command line of the node, before a command.
func (n *Node) CLI() []string {
	return []string{filepath.Join(n.bin, "lncli"), "--lnddir=" + n.Dir, "--rpcserver=" + n.RPCAddress, "--network=regtest"}
}
