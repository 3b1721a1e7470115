package lnd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/wire"
	"github.com/lightningnetwork/lnd/lnrpc/walletrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hearthwallet/hearth/core/ledger"
)

// On-chain spends (ledger.ChainSpender) through walletrpc: FundPsbt picks
// and leases the coins under a lock id made from the lease's text, so
// that the lease can be found and released after a crash with nothing
// but that text; FinalizePsbt signs; PublishTransaction broadcasts.

// leaseExpiry is how long LND keeps a prepared spend's coins leased when
// nobody releases them (a crash): then they are free again by themselves.
const leaseExpiry = 10 * 60 // seconds

// defaultTargetConf is the confirmation target of a spend that names no
// fee rate and no target.
const defaultTargetConf = 6

// leaseID is the 32-byte lock id of the lease named lease.
func leaseID(lease string) []byte {
	h := sha256.Sum256([]byte("hearth onchain lease " + lease))
	return h[:]
}

func (n *Node) wallet() walletrpc.WalletKitClient { return walletrpc.NewWalletKitClient(n.conn) }

// PrepareSpend funds a transaction paying req from coins leased under
// lease, signs it, and returns it unpublished with its exact fee. On any
// failure after funding, the coins are released.
func (n *Node) PrepareSpend(ctx context.Context, lease string, req ledger.SpendRequest) (*ledger.PreparedSpend, error) {
	_, params, err := n.identity(ctx)
	if err != nil {
		return nil, err
	}
	addr, err := btcutil.DecodeAddress(req.Address, params)
	if err != nil || !addr.IsForNet(params) {
		return nil, ledger.ErrInvalidAddress.Reasonf("Not a bitcoin address of the node's network (%s)", params.Name)
	}
	if req.AmountSat <= 0 {
		return nil, ledger.ErrInvalidAmount.Reasonf("amount must be positive")
	}
	fr := &walletrpc.FundPsbtRequest{
		Template: &walletrpc.FundPsbtRequest_Raw{Raw: &walletrpc.TxTemplate{
			Outputs: map[string]uint64{addr.EncodeAddress(): uint64(req.AmountSat)}}},
		MinConfs:              1,
		CustomLockId:          leaseID(lease),
		LockExpirationSeconds: leaseExpiry,
	}
	switch {
	case req.SatPerVByte > 0:
		fr.Fees = &walletrpc.FundPsbtRequest_SatPerVbyte{SatPerVbyte: uint64(req.SatPerVByte)}
	case req.TargetConf > 0:
		fr.Fees = &walletrpc.FundPsbtRequest_TargetConf{TargetConf: uint32(req.TargetConf)}
	default:
		fr.Fees = &walletrpc.FundPsbtRequest_TargetConf{TargetConf: defaultTargetConf}
	}
	funded, err := n.wallet().FundPsbt(ctx, fr)
	if err != nil {
		// LND says so in words only: the one vendor error read as text,
		// here, at the boundary.
		if st, ok := status.FromError(err); ok && strings.Contains(st.Message(), "insufficient funds") {
			return nil, ledger.ErrNoChainFunds
		}
		return nil, fmt.Errorf("lnd fund psbt: %w", err)
	}
	sp, err := n.sign(ctx, funded, req)
	if err != nil {
		if rerr := n.ReleaseSpend(context.WithoutCancel(ctx), lease); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, err
	}
	return sp, nil
}

// sign finalises a funded PSBT and measures its fee.
func (n *Node) sign(ctx context.Context, funded *walletrpc.FundPsbtResponse, req ledger.SpendRequest) (*ledger.PreparedSpend, error) {
	fin, err := n.wallet().FinalizePsbt(ctx, &walletrpc.FinalizePsbtRequest{FundedPsbt: funded.FundedPsbt})
	if err != nil {
		return nil, fmt.Errorf("lnd finalize psbt: %w", err)
	}
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(fin.RawFinalTx)); err != nil {
		return nil, fmt.Errorf("decoding the signed transaction: %w", err)
	}
	if len(funded.LockedUtxos) != len(tx.TxIn) {
		return nil, fmt.Errorf("the signed transaction spends %d inputs, %d were leased", len(tx.TxIn), len(funded.LockedUtxos))
	}
	var in, out int64
	for _, u := range funded.LockedUtxos {
		in += int64(u.Value)
	}
	for _, o := range tx.TxOut {
		out += o.Value
	}
	if in < out {
		return nil, fmt.Errorf("the signed transaction spends %d sat and pays %d", in, out)
	}
	return &ledger.PreparedSpend{TxID: tx.TxHash().String(), Address: req.Address, AmountSat: req.AmountSat,
		FeeSat: in - out, RawTx: fin.RawFinalTx}, nil
}

// PublishSpend broadcasts sp. When LND answers an error but knows the
// transaction, it was published (it keeps broadcasting what it knows);
// when it answers an error and does not know it, the refusal is definite.
func (n *Node) PublishSpend(ctx context.Context, sp *ledger.PreparedSpend) error {
	res, err := n.wallet().PublishTransaction(ctx, &walletrpc.Transaction{TxHex: sp.RawTx, Label: "hearth spend"})
	if err == nil && res.PublishError == "" {
		return nil
	}
	if err != nil && !answered(err) {
		return fmt.Errorf("lnd publish transaction: %w", err) // ambiguous
	}
	reason := res.GetPublishError()
	if err != nil {
		reason = status.Convert(err).Message()
	}
	if _, lerr := n.LookupChainTx(ctx, sp.TxID); lerr == nil {
		return nil
	} else if !errors.Is(lerr, ledger.ErrUnknownChainTx) {
		return fmt.Errorf("lnd publish transaction: %s; then %w", reason, lerr) // ambiguous
	}
	return &ledger.PaymentFailure{Reason: "the transaction was refused: " + reason}
}

// ReleaseSpend frees every coin leased under lease.
func (n *Node) ReleaseSpend(ctx context.Context, lease string) error {
	ls, err := n.wallet().ListLeases(ctx, &walletrpc.ListLeasesRequest{})
	if err != nil {
		return fmt.Errorf("lnd list leases: %w", err)
	}
	id := leaseID(lease)
	for _, l := range ls.LockedUtxos {
		if !bytes.Equal(l.Id, id) {
			continue
		}
		if _, err := n.wallet().ReleaseOutput(ctx, &walletrpc.ReleaseOutputRequest{Id: id, Outpoint: l.Outpoint}); err != nil {
			return fmt.Errorf("lnd release output: %w", err)
		}
	}
	return nil
}

// LookupChainTx returns a transaction the wallet knows.
func (n *Node) LookupChainTx(ctx context.Context, txid string) (*ledger.ChainTx, error) {
	t, err := n.wallet().GetTransaction(ctx, &walletrpc.GetTransactionRequest{Txid: txid})
	if err != nil {
		// btcwallet's ErrNoTx, which LND passes on as text.
		if answered(err) && strings.Contains(status.Convert(err).Message(), "can not find transaction") {
			return nil, ledger.ErrUnknownChainTx
		}
		return nil, fmt.Errorf("lnd get transaction: %w", err)
	}
	tx := chainTx(t)
	return &tx, nil
}

// answered reports whether err is LND's answer, not a failure to reach it.
func answered(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return false
	}
	return true
}

var _ ledger.ChainSpender = (*Node)(nil)
