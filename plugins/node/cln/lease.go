package cln

import (
	"context"
	"fmt"
)

// A prepared spend's PSBT is kept in lightningd's own datastore, under
// ["hearth", "spend", <lease>], from txprepare until it is published or
// released: lightningd reserves coins for a number of blocks, not under a
// name, so a Hearth that crashed between preparing and publishing would
// otherwise have no way to release them, and they would stay reserved
// until the reservation ran out (72 blocks, about half a day). Restarted,
// the ledger releases the spends the node never got (ReleaseSpend), and
// the PSBT comes back from the datastore.

// codeDatastoreNoKey is deldatastore's error for a key it does not have.
const codeDatastoreNoKey = 1200

func leaseKey(lease string) []string { return []string{"hearth", "spend", lease} }

// rememberLease keeps the unsigned PSBT of lease in the datastore.
func (n *Node) rememberLease(ctx context.Context, lease, psbt string) error {
	if err := n.call(ctx, datastoreRequest{Key: leaseKey(lease), String: psbt, Mode: "create-or-replace"}, nil); err != nil {
		return fmt.Errorf("keeping spend %s in the node's datastore: %w", lease, err)
	}
	return nil
}

// recallLease returns the unsigned PSBT kept for lease, "" when none is.
func (n *Node) recallLease(ctx context.Context, lease string) (string, error) {
	var res listdatastoreResponse
	if err := n.call(ctx, listdatastoreRequest{Key: leaseKey(lease)}, &res); err != nil {
		return "", err
	}
	for _, d := range res.Datastore {
		if len(d.Key) == 3 && d.Key[2] == lease && d.String != nil {
			return *d.String, nil
		}
	}
	return "", nil
}

// forgetLease deletes lease's PSBT from the datastore; one already gone
// is forgotten.
func (n *Node) forgetLease(ctx context.Context, lease string) error {
	err := n.call(ctx, deldatastoreRequest{Key: leaseKey(lease)}, nil)
	if code, ok := rpcCode(err); ok && code == codeDatastoreNoKey {
		return nil
	}
	return err
}
