package plugintest

import (
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// Reachable is an Options.Node: the instance's embedded node as if other
// nodes reached it — its ledger.Local mark hidden — so that the ledger
// hands out keysend addresses (its node key, a wallet's keysend id) for a
// plugin's test to read. It pays and receives as the embedded node does.
// It lives here because no plugin may import the embedded node
// (internal/archtest).
func Reachable(inner *embedded.Node) ledger.Node { return reachableNode{inner} }

// reachableNode carries the ledger.Node methods of the embedded node, not
// its Local.
type reachableNode struct{ ledger.Node }
