package cln

import (
	"context"
	"strconv"
	"time"
)

// A keysend tries one route after another (keysend.go), and between two
// tries every part the node sent has failed: listpays says "failed" of a
// payment that is not over. Whoever looks it up then (the ledger's
// payment stream, the reconciler, in this process or in another replica)
// would fail it and release its reserve, and a later try could still
// succeed. So while it tries, the keysend keeps a mark in lightningd's
// datastore, under ["hearth", "keysend", <payment hash>], with the time
// its tries end; LookupPayment reads a failed payment so marked as still
// in flight until then. The mark goes when the keysend ends; one left by a
// crash stops counting at its time.

// markSlack is how long a mark outlives the keysend's own deadline: the
// last try's answer on its way.
const markSlack = 10 * time.Second

func keysendKey(hash string) []string { return []string{"hearth", "keysend", hash} }

// markKeysend marks the keysend of hash as trying until until.
func (n *Node) markKeysend(ctx context.Context, hash string, until time.Time) error {
	mark := datastoreRequest{Key: keysendKey(hash), String: strconv.FormatInt(until.Unix(), 10), Mode: "create-or-replace"}
	return n.call(ctx, mark, nil)
}

// unmarkKeysend removes the mark of hash, if any, even once ctx ended.
func (n *Node) unmarkKeysend(ctx context.Context, hash string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	n.call(ctx, deldatastoreRequest{Key: keysendKey(hash)}, nil) //nolint:errcheck // a mark left behind expires
}

// keysendTrying reports whether a keysend of hash is still trying routes.
func (n *Node) keysendTrying(ctx context.Context, hash string) (bool, error) {
	var res listdatastoreResponse
	if err := n.call(ctx, listdatastoreRequest{Key: keysendKey(hash)}, &res); err != nil {
		return false, err
	}
	for _, d := range res.Datastore {
		if len(d.Key) != 3 || d.Key[2] != hash || d.String == nil {
			continue
		}
		until, err := strconv.ParseInt(*d.String, 10, 64)
		return err == nil && time.Now().Before(time.Unix(until, 0)), nil
	}
	return false, nil
}
