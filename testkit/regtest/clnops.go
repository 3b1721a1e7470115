package regtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
)

// NewAddress returns a new P2WPKH address of the node's wallet.
func (n *CLNNode) NewAddress(ctx context.Context) (string, error) {
	var res struct {
		Bech32 string `json:"bech32"`
	}
	if err := n.Call(ctx, &res, "newaddr", map[string]any{"addresstype": "bech32"}); err != nil {
		return "", err
	}
	return res.Bech32, nil
}

// Height is the block height the node has processed.
func (n *CLNNode) Height(ctx context.Context) (int64, error) {
	var info struct {
		Blockheight int64 `json:"blockheight"`
	}
	err := n.Call(ctx, &info, "getinfo", nil)
	return info.Blockheight, err
}

// WaitHeight waits until the node has processed the chain up to height.
func (n *CLNNode) WaitHeight(ctx context.Context, height int64) error {
	return poll(ctx, 60*time.Second, fmt.Sprintf("lightningd %s at height %d", n.Name, height), func(ctx context.Context) error {
		h, err := n.Height(ctx)
		if err != nil {
			return err
		}
		if h < height {
			return fmt.Errorf("at height %d", h)
		}
		return nil
	})
}

// waitFunds waits until the node's wallet has confirmed coins for two
// channels.
func (n *CLNNode) waitFunds(ctx context.Context) error {
	return poll(ctx, 60*time.Second, "lightningd "+n.Name+" funds", func(ctx context.Context) error {
		var funds struct {
			Outputs []struct {
				AmountMsat int64  `json:"amount_msat"`
				Status     string `json:"status"`
			} `json:"outputs"`
		}
		if err := n.Call(ctx, &funds, "listfunds", nil); err != nil {
			return err
		}
		var sat int64
		for _, o := range funds.Outputs {
			if o.Status == "confirmed" {
				sat += o.AmountMsat / 1000
			}
		}
		if sat < 2*ChannelSat {
			return fmt.Errorf("confirmed funds %d sat", sat)
		}
		return nil
	})
}

// OpenChannel connects to the node pubkey at addr and opens a channel of
// sat, pushing pushSat to it. The funding transaction is in the mempool.
func (n *CLNNode) OpenChannel(ctx context.Context, pubkey, addr string, sat, pushSat int64) error {
	err := poll(ctx, 30*time.Second, n.Name+" connected to "+pubkey, func(ctx context.Context) error {
		return n.Call(ctx, nil, "connect", map[string]any{"id": pubkey + "@" + addr})
	})
	if err != nil {
		return err
	}
	return poll(ctx, 30*time.Second, "opening a channel to "+pubkey, func(ctx context.Context) error {
		return n.Call(ctx, nil, "fundchannel", map[string]any{"id": pubkey, "amount": sat, "push_msat": pushSat * 1000})
	})
}

// waitChannelNormal waits until the node's channel with pubkey is normal
// and its peer connected.
func (n *CLNNode) waitChannelNormal(ctx context.Context, pubkey string) error {
	return poll(ctx, 60*time.Second, n.Name+"'s channel with "+pubkey, func(ctx context.Context) error {
		var res struct {
			Channels []struct {
				State         string `json:"state"`
				PeerConnected bool   `json:"peer_connected"`
			} `json:"channels"`
		}
		if err := n.Call(ctx, &res, "listpeerchannels", map[string]any{"id": pubkey}); err != nil {
			return err
		}
		for _, c := range res.Channels {
			if c.State == "CHANNELD_NORMAL" && c.PeerConnected {
				return nil
			}
		}
		return fmt.Errorf("channels %+v", res.Channels)
	})
}

// waitRoute waits until askrene (what xpay asks) finds a route from the
// node to pubkey.
func (n *CLNNode) waitRoute(ctx context.Context, pubkey string) error {
	return poll(ctx, 60*time.Second, "a route from "+n.Name+" to "+pubkey, func(ctx context.Context) error {
		return n.Call(ctx, nil, "getroutes", map[string]any{
			"source": n.Pubkey, "destination": pubkey, "amount_msat": 1000,
			"layers": []string{"auto.localchans", "auto.sourcefree"}, "maxfee_msat": 1000, "final_cltv": 18,
		})
	})
}

// waitRouteTo waits until lnd finds a route to pubkey.
func (n *Node) waitRouteTo(ctx context.Context, pubkey string) error {
	return poll(ctx, 60*time.Second, "a route from "+n.Name+" to "+pubkey, func(ctx context.Context) error {
		_, err := n.ln.QueryRoutes(ctx, &lnrpc.QueryRoutesRequest{PubKey: pubkey, Amt: 1000})
		return err
	})
}

// Invoice issues an invoice of amountMsat (0: any amount); it returns the
// BOLT11 and the payment hash (hex).
func (n *CLNNode) Invoice(ctx context.Context, amountMsat int64, label, desc string) (bolt11, hash string, err error) {
	var res struct {
		Bolt11      string `json:"bolt11"`
		PaymentHash string `json:"payment_hash"`
	}
	var amount any = amountMsat
	if amountMsat == 0 {
		amount = "any"
	}
	err = n.Call(ctx, &res, "invoice", map[string]any{"amount_msat": amount, "label": label, "description": desc})
	return res.Bolt11, res.PaymentHash, err
}

// Pay pays bolt11 with xpay, within maxFeeMsat, and returns the fee paid.
func (n *CLNNode) Pay(ctx context.Context, bolt11 string, maxFeeMsat int64) (feeMsat int64, err error) {
	var res struct {
		AmountMsat     int64 `json:"amount_msat"`
		AmountSentMsat int64 `json:"amount_sent_msat"`
	}
	if err := n.Call(ctx, &res, "xpay", map[string]any{"invstring": bolt11, "maxfee": maxFeeMsat, "retry_for": 30}); err != nil {
		return 0, err
	}
	return res.AmountSentMsat - res.AmountMsat, nil
}

// InvoiceStatus is the status of the node's invoice of hash ("unpaid",
// "paid", "expired"), or "" when it has none.
func (n *CLNNode) InvoiceStatus(ctx context.Context, hash string) (string, error) {
	var res struct {
		Invoices []struct {
			Status string `json:"status"`
		} `json:"invoices"`
	}
	if err := n.Call(ctx, &res, "listinvoices", map[string]any{"payment_hash": hash}); err != nil {
		return "", err
	}
	if len(res.Invoices) == 0 {
		return "", nil
	}
	return res.Invoices[0].Status, nil
}

// PaymentCount is how many payments of hash the node made (listpays).
func (n *CLNNode) PaymentCount(ctx context.Context, hash string) (int, error) {
	var res struct {
		Pays []struct{} `json:"pays"`
	}
	err := n.Call(ctx, &res, "listpays", map[string]any{"payment_hash": hash})
	return len(res.Pays), err
}

// IsCode reports whether err is lightningd's error of code.
func IsCode(err error, code int) bool {
	var e *CLNError
	return errors.As(err, &e) && e.Code == code
}
