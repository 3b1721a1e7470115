package cln

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/psbt"

	"github.com/hearthwallet/hearth/core/ledger"
)

// On-chain spends (ledger.ChainSpender): txprepare picks the coins and
// reserves them, signpsbt signs, sendpsbt broadcasts, unreserveinputs
// releases. lightningd reserves coins for a number of blocks (72 by
// default), not under a name, so the backend remembers which PSBT each
// lease reserved while it runs; after a crash the coins of a spend never
// published are free again when the reservation runs out.

// defaultTargetConf is the confirmation target of a spend that names no
// fee rate and no target.
const defaultTargetConf = 6

// spends are the PSBTs of the spends prepared and not yet published or
// released: by lease (to release) and by txid (to publish).
type spends struct {
	mu      sync.Mutex
	byLease map[string]string // lease → unsigned PSBT
	signed  map[string]string // txid → signed PSBT
}

func (s *spends) put(lease, txid, unsigned, signed string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byLease == nil {
		s.byLease, s.signed = map[string]string{}, map[string]string{}
	}
	s.byLease[lease], s.signed[txid] = unsigned, signed
}

// PrepareSpend funds a transaction paying req, signs it, and returns it
// unpublished with its exact fee. On any failure after funding, the coins
// are released.
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
	tp := txprepareRequest{
		Outputs: []map[string]string{{addr.EncodeAddress(): strconv.FormatInt(req.AmountSat, 10) + "sat"}},
		Feerate: strconv.Itoa(defaultTargetConf) + "blocks",
		Minconf: 1,
	}
	switch {
	case req.SatPerVByte > 0:
		tp.Feerate = strconv.FormatInt(req.SatPerVByte*1000, 10) + "perkb"
	case req.TargetConf > 0:
		tp.Feerate = strconv.Itoa(int(req.TargetConf)) + "blocks"
	}
	var prepared txprepareResponse
	if err := n.call(ctx, tp, &prepared); err != nil {
		if code, ok := rpcCode(err); ok && code == 301 { // FUND_CANNOT_AFFORD
			return nil, ledger.ErrNoChainFunds
		}
		return nil, err
	}
	n.spends.put(lease, prepared.TxID, prepared.PSBT, "")
	sp, signed, err := n.sign(ctx, prepared, req)
	if err != nil {
		if rerr := n.ReleaseSpend(context.WithoutCancel(ctx), lease); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, err
	}
	n.spends.put(lease, sp.TxID, prepared.PSBT, signed)
	return sp, nil
}

// sign signs a prepared PSBT, and measures the fee of the transaction.
func (n *Node) sign(ctx context.Context, prepared txprepareResponse, req ledger.SpendRequest) (*ledger.PreparedSpend, string, error) {
	var res signpsbtResponse
	if err := n.call(ctx, signpsbtRequest{PSBT: prepared.PSBT}, &res); err != nil {
		return nil, "", err
	}
	p, err := psbt.NewFromRawBytes(strings.NewReader(res.SignedPSBT), true)
	if err != nil {
		return nil, "", fmt.Errorf("reading the signed psbt: %w", err)
	}
	fee, err := p.GetTxFee()
	if err != nil {
		return nil, "", fmt.Errorf("the signed psbt's fee: %w", err)
	}
	if err := psbt.MaybeFinalizeAll(p); err != nil {
		return nil, "", fmt.Errorf("finalizing the signed psbt: %w", err)
	}
	tx, err := psbt.Extract(p)
	if err != nil {
		return nil, "", fmt.Errorf("extracting the signed transaction: %w", err)
	}
	if tx.TxHash().String() != prepared.TxID {
		return nil, "", fmt.Errorf("signpsbt signed transaction %s, txprepare prepared %s", tx.TxHash(), prepared.TxID)
	}
	var raw bytes.Buffer
	if err := tx.Serialize(&raw); err != nil {
		return nil, "", err
	}
	return &ledger.PreparedSpend{TxID: prepared.TxID, Address: req.Address, AmountSat: req.AmountSat,
		FeeSat: int64(fee), RawTx: raw.Bytes()}, res.SignedPSBT, nil
}

// PublishSpend broadcasts sp with sendpsbt. When the node refuses but
// knows the transaction, it was published; when it refuses and does not
// know it, the refusal is definite.
func (n *Node) PublishSpend(ctx context.Context, sp *ledger.PreparedSpend) error {
	n.spends.mu.Lock()
	signed := n.spends.signed[sp.TxID]
	n.spends.mu.Unlock()
	if signed == "" {
		return &ledger.PaymentFailure{Reason: "the spend was not prepared by this server"}
	}
	err := n.call(ctx, sendpsbtRequest{PSBT: signed}, nil)
	if err == nil {
		n.forget(sp.TxID)
		return nil
	}
	var refused *RPCError
	if !errors.As(err, &refused) {
		return err // ambiguous
	}
	if _, lerr := n.LookupChainTx(ctx, sp.TxID); lerr == nil {
		n.forget(sp.TxID)
		return nil
	} else if !errors.Is(lerr, ledger.ErrUnknownChainTx) {
		return fmt.Errorf("%w; then %w", err, lerr) // ambiguous
	}
	return &ledger.PaymentFailure{Reason: "the transaction was refused: " + refused.Message}
}

// forget drops a published spend: its coins are spent, not reserved.
func (n *Node) forget(txid string) {
	n.spends.mu.Lock()
	defer n.spends.mu.Unlock()
	delete(n.spends.signed, txid)
	for lease, unsigned := range n.spends.byLease {
		if p, err := psbt.NewFromRawBytes(strings.NewReader(unsigned), true); err == nil && p.UnsignedTx.TxHash().String() == txid {
			delete(n.spends.byLease, lease)
		}
	}
}

// ReleaseSpend unreserves the coins of the spend prepared under lease, if
// this server prepared one and did not publish it.
func (n *Node) ReleaseSpend(ctx context.Context, lease string) error {
	n.spends.mu.Lock()
	unsigned := n.spends.byLease[lease]
	n.spends.mu.Unlock()
	if unsigned == "" {
		return nil
	}
	if err := n.call(ctx, unreserveinputsRequest{PSBT: unsigned}, nil); err != nil {
		return err
	}
	n.spends.mu.Lock()
	delete(n.spends.byLease, lease)
	n.spends.mu.Unlock()
	return nil
}
