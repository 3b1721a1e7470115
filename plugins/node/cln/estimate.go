package cln

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/lightningnetwork/lnd/zpay32"
)

// EstimateRouteFee asks askrene (getroutes, as xpay does: with the node's
// own channels as they are now, and free) for the routes of amountMsat to
// the invoice's payee, and returns their fee: what the first hops are sent
// less what arrives.
func (n *Node) EstimateRouteFee(ctx context.Context, bolt11 string, amountMsat int64) (int64, error) {
	pubkey, params, err := n.identity(ctx)
	if err != nil {
		return 0, err
	}
	inv, err := zpay32.Decode(bolt11, params)
	if err != nil {
		return 0, fmt.Errorf("decoding the invoice: %w", err)
	}
	if inv.Destination == nil {
		return 0, errors.New("the invoice has no payee")
	}
	req := getroutesRequest{
		Source:      pubkey,
		Destination: hex.EncodeToString(inv.Destination.SerializeCompressed()),
		AmountMsat:  amountMsat,
		Layers:      []string{"auto.localchans", "auto.sourcefree"},
		MaxFeeMsat:  amountMsat,
		FinalCLTV:   uint32(inv.MinFinalCLTVExpiry()),
	}
	var res getroutesResponse
	if err := n.call(ctx, req, &res); err != nil {
		return 0, err
	}
	if len(res.Routes) == 0 {
		return 0, errors.New("cln found no route")
	}
	var fee int64
	for _, r := range res.Routes {
		if len(r.Path) == 0 {
			return 0, errors.New("cln answered a route without hops")
		}
		sent, ok := r.Path[0].sent()
		if !ok || sent < r.AmountMsat {
			return 0, fmt.Errorf("cln answered a route that sends %d msat to deliver %d", sent, r.AmountMsat)
		}
		fee += sent - r.AmountMsat
	}
	return fee, nil
}
