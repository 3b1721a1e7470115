// Package builtins lists the built-in plugins Hearth ships: each is built
// by its own folder's descriptor (host.Descriptor), and the node backends
// by theirs (lnd.go, cln.go). cmd/hearth lists them. They are apart from
// app so that what builds an App with none of them (the plugin authors'
// harness, the API's tests) does not build them.
package builtins

import (
	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugins/onchain"
	"github.com/hearthwallet/hearth/plugins/rates"
	"github.com/hearthwallet/hearth/plugins/webhooks"
	"github.com/hearthwallet/hearth/plugins/withdraw"
)

// Descriptors are the built-ins of `hearth serve` beside its node
// backends. Adding one is one line.
func Descriptors() []host.Descriptor {
	return []host.Descriptor{
		webhooks.Descriptor(nil),
		lnurl.Descriptor(),
		nostr.Descriptor(nil),
		onchain.Descriptor(nil),
		nwc.Descriptor(nil),
		withdraw.Descriptor(nil),
		rates.Descriptor(nil),
	}
}

// Features are the Descriptors as the application wires them: what
// cmd/hearth runs, and what cmd/loadbench runs beside the embedded node so
// that its figures include their work.
func Features() []app.Builtin { return app.Features(Descriptors()...) }
