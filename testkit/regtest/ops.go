package regtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
	"github.com/lightningnetwork/lnd/lnrpc/invoicesrpc"
	"github.com/lightningnetwork/lnd/lnrpc/routerrpc"
)

// NewAddress returns a new P2WPKH address of the node's wallet.
func (n *Node) NewAddress(ctx context.Context) (string, error) {
	res, err := n.ln.NewAddress(ctx, &lnrpc.NewAddressRequest{Type: lnrpc.AddressType_WITNESS_PUBKEY_HASH})
	if err != nil {
		return "", fmt.Errorf("%s new address: %w", n.Name, err)
	}
	return res.Address, nil
}

// waitHeight waits until the node has seen the chain up to height.
func (n *Node) waitHeight(ctx context.Context, height int64) error {
	return poll(ctx, 60*time.Second, fmt.Sprintf("lnd %s at height %d", n.Name, height), func(ctx context.Context) error {
		info, err := n.ln.GetInfo(ctx, &lnrpc.GetInfoRequest{})
		if err != nil {
			return err
		}
		if int64(info.BlockHeight) < height || !info.SyncedToChain {
			return fmt.Errorf("at height %d, synced %v", info.BlockHeight, info.SyncedToChain)
		}
		return nil
	})
}

// waitFunds waits until the node's wallet has confirmed coins to spend.
func (n *Node) waitFunds(ctx context.Context) error {
	return poll(ctx, 60*time.Second, "lnd "+n.Name+" funds", func(ctx context.Context) error {
		wb, err := n.ln.WalletBalance(ctx, &lnrpc.WalletBalanceRequest{})
		if err != nil {
			return err
		}
		if wb.ConfirmedBalance < 2*ChannelSat {
			return fmt.Errorf("confirmed balance %d sat", wb.ConfirmedBalance)
		}
		return nil
	})
}

// openChannel connects to peer and opens a channel with a push amount.
func (n *Node) openChannel(ctx context.Context, peer *Node, sat, pushSat int64) error {
	err := poll(ctx, 30*time.Second, n.Name+" connected to "+peer.Name, func(ctx context.Context) error {
		_, err := n.ln.ConnectPeer(ctx, &lnrpc.ConnectPeerRequest{Addr: &lnrpc.LightningAddress{Pubkey: peer.Pubkey, Host: peer.P2PAddress}, Perm: true})
		if err != nil {
			peers, lerr := n.ln.ListPeers(ctx, &lnrpc.ListPeersRequest{})
			if lerr == nil {
				for _, p := range peers.Peers {
					if p.PubKey == peer.Pubkey {
						return nil
					}
				}
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	return poll(ctx, 30*time.Second, "opening a channel", func(ctx context.Context) error {
		_, err := n.ln.OpenChannelSync(ctx, &lnrpc.OpenChannelRequest{
			NodePubkeyString:   peer.Pubkey,
			LocalFundingAmount: sat,
			PushSat:            pushSat,
			SatPerVbyte:        2,
		})
		return err
	})
}

// waitRoute waits until the node finds a route to dest.
func (n *Node) waitRoute(ctx context.Context, dest *Node) error {
	return poll(ctx, 60*time.Second, "a route from "+n.Name+" to "+dest.Name, func(ctx context.Context) error {
		_, err := n.ln.QueryRoutes(ctx, &lnrpc.QueryRoutesRequest{PubKey: dest.Pubkey, Amt: 1000})
		return err
	})
}

// WaitRoute waits until the node (after a restart, say) routes to dest.
func (n *Node) WaitRoute(ctx context.Context, dest *Node) error { return n.waitRoute(ctx, dest) }

// AddInvoice issues an invoice of amountMsat; it returns the BOLT11 and the
// payment hash (hex).
func (n *Node) AddInvoice(ctx context.Context, amountMsat int64, memo string) (bolt11, hash string, err error) {
	res, err := n.ln.AddInvoice(ctx, &lnrpc.Invoice{ValueMsat: amountMsat, Memo: memo})
	if err != nil {
		return "", "", fmt.Errorf("%s add invoice: %w", n.Name, err)
	}
	return res.PaymentRequest, hex.EncodeToString(res.RHash), nil
}

// HoldInvoice is an invoice whose payment the node holds until it is
// settled or cancelled by hand.
type HoldInvoice struct {
	Bolt11   string
	Hash     string
	preimage [32]byte
}

// AddHoldInvoice issues a hold invoice of amountMsat.
func (n *Node) AddHoldInvoice(ctx context.Context, amountMsat int64) (*HoldInvoice, error) {
	h := new(HoldInvoice)
	if _, err := rand.Read(h.preimage[:]); err != nil {
		return nil, err
	}
	hash := sha256.Sum256(h.preimage[:])
	h.Hash = hex.EncodeToString(hash[:])
	res, err := n.invoices.AddHoldInvoice(ctx, &invoicesrpc.AddHoldInvoiceRequest{Hash: hash[:], ValueMsat: amountMsat, Memo: "hold"})
	if err != nil {
		return nil, fmt.Errorf("%s add hold invoice: %w", n.Name, err)
	}
	h.Bolt11 = res.PaymentRequest
	return h, nil
}

// SettleHoldInvoice releases the preimage of an accepted hold invoice.
func (n *Node) SettleHoldInvoice(ctx context.Context, h *HoldInvoice) error {
	_, err := n.invoices.SettleInvoice(ctx, &invoicesrpc.SettleInvoiceMsg{Preimage: h.preimage[:]})
	return err
}

// CancelInvoice cancels an open or accepted invoice.
func (n *Node) CancelInvoice(ctx context.Context, hash string) error {
	b, err := hex.DecodeString(hash)
	if err != nil {
		return err
	}
	_, err = n.invoices.CancelInvoice(ctx, &invoicesrpc.CancelInvoiceMsg{PaymentHash: b})
	return err
}

// InvoiceState returns OPEN, ACCEPTED, SETTLED or CANCELED.
func (n *Node) InvoiceState(ctx context.Context, hash string) (string, error) {
	b, err := hex.DecodeString(hash)
	if err != nil {
		return "", err
	}
	inv, err := n.ln.LookupInvoice(ctx, &lnrpc.PaymentHash{RHash: b})
	if err != nil {
		return "", err
	}
	return inv.State.String(), nil
}

// WaitInvoiceState waits until the node's invoice is in state.
func (n *Node) WaitInvoiceState(ctx context.Context, hash, state string) error {
	return poll(ctx, 60*time.Second, "invoice "+state, func(ctx context.Context) error {
		got, err := n.InvoiceState(ctx, hash)
		if err == nil && got != state {
			err = errors.New("state " + got)
		}
		return err
	})
}

// Pay pays bolt11 with SendPaymentV2 and waits for the outcome; it returns
// the fee paid, or an error naming the failure reason.
func (n *Node) Pay(ctx context.Context, bolt11 string, feeLimitMsat int64) (feeMsat int64, err error) {
	stream, err := n.router.SendPaymentV2(ctx, &routerrpc.SendPaymentRequest{
		PaymentRequest: bolt11, FeeLimitMsat: feeLimitMsat, TimeoutSeconds: 60, NoInflightUpdates: true})
	if err != nil {
		return 0, err
	}
	for {
		p, err := stream.Recv()
		if err != nil {
			return 0, fmt.Errorf("%s pay: %w", n.Name, err)
		}
		switch p.Status {
		case lnrpc.Payment_SUCCEEDED:
			return p.FeeMsat, nil
		case lnrpc.Payment_FAILED:
			return 0, fmt.Errorf("%s pay: %s", n.Name, p.FailureReason)
		}
	}
}

// Keysend pays dest (a node's key, hex) amountMsat with no invoice: a
// preimage drawn here, sent in record 5482373484 beside records; it
// returns the payment hash once the payment succeeded.
func (n *Node) Keysend(ctx context.Context, dest string, amountMsat int64, records map[uint64][]byte) (hash string, err error) {
	key, err := hex.DecodeString(dest)
	if err != nil {
		return "", fmt.Errorf("%s keysend: destination: %w", n.Name, err)
	}
	var pre [32]byte
	if _, err := rand.Read(pre[:]); err != nil {
		return "", err
	}
	sum := sha256.Sum256(pre[:])
	all := map[uint64][]byte{5482373484: pre[:]}
	for typ, v := range records {
		all[typ] = v
	}
	stream, err := n.router.SendPaymentV2(ctx, &routerrpc.SendPaymentRequest{Dest: key, AmtMsat: amountMsat,
		PaymentHash: sum[:], DestCustomRecords: all, FeeLimitMsat: 1_000_000, TimeoutSeconds: 60, NoInflightUpdates: true})
	if err != nil {
		return "", fmt.Errorf("%s keysend: %w", n.Name, err)
	}
	for {
		p, err := stream.Recv()
		if err != nil {
			return "", fmt.Errorf("%s keysend: %w", n.Name, err)
		}
		switch p.Status {
		case lnrpc.Payment_SUCCEEDED:
			return hex.EncodeToString(sum[:]), nil
		case lnrpc.Payment_FAILED:
			return "", fmt.Errorf("%s keysend: %s", n.Name, p.FailureReason)
		}
	}
}

// PaymentCount returns how many payments of hash the node made, and how
// many of them succeeded.
func (n *Node) PaymentCount(ctx context.Context, hash string) (all, succeeded int, err error) {
	res, err := n.ln.ListPayments(ctx, &lnrpc.ListPaymentsRequest{IncludeIncomplete: true})
	if err != nil {
		return 0, 0, err
	}
	for _, p := range res.Payments {
		if p.PaymentHash == hash {
			all++
			if p.Status == lnrpc.Payment_SUCCEEDED {
				succeeded++
			}
		}
	}
	return all, succeeded, nil
}

// Keysent is what a node received by keysend for payment hash: the amount
// and the custom records of the HTLCs it settled.
func (n *Node) Keysent(ctx context.Context, hash string) (amountMsat int64, records map[uint64][]byte, err error) {
	b, err := hex.DecodeString(hash)
	if err != nil {
		return 0, nil, err
	}
	inv, err := n.ln.LookupInvoice(ctx, &lnrpc.PaymentHash{RHash: b})
	if err != nil {
		return 0, nil, fmt.Errorf("%s lookup invoice: %w", n.Name, err)
	}
	if !inv.IsKeysend || inv.State != lnrpc.Invoice_SETTLED {
		return 0, nil, fmt.Errorf("%s: invoice %s is no settled keysend (%s)", n.Name, hash, inv.State)
	}
	records = map[uint64][]byte{}
	for _, h := range inv.Htlcs {
		for typ, v := range h.CustomRecords {
			records[typ] = v
		}
	}
	return inv.AmtPaidMsat, records, nil
}
