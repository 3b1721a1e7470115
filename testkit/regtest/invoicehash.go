package regtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/lightningnetwork/lnd/lnrpc"
)

// AddInvoiceHash issues an invoice of amountMsat that commits to
// descriptionHash, as an LNURL-pay server does; it returns the BOLT11 and
// the preimage (hex), which the test chose.
func (n *Node) AddInvoiceHash(ctx context.Context, amountMsat int64, descriptionHash []byte) (bolt11, preimage string, err error) {
	var pre [32]byte
	if _, err := rand.Read(pre[:]); err != nil {
		return "", "", err
	}
	res, err := n.ln.AddInvoice(ctx, &lnrpc.Invoice{ValueMsat: amountMsat, DescriptionHash: descriptionHash, RPreimage: pre[:]})
	if err != nil {
		return "", "", fmt.Errorf("%s add invoice: %w", n.Name, err)
	}
	return res.PaymentRequest, hex.EncodeToString(pre[:]), nil
}
