package cln

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/wire"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
)

// On-chain spends (ledger.ChainSpender): txprepare picks the coins and
// reserves them, signpsbt signs, sendpsbt finalizes and broadcasts,
// unreserveinputs releases. The PSBTs stay opaque here (lightningd
// answers version 2, which btcutil's psbt does not read): the fee is
// measured from txprepare's unsigned transaction and the wallet's coins
// (listfunds). lightningd reserves coins for a number of blocks rather
// than under a name, so the backend remembers which PSBT each lease
// reserved, in memory and in lightningd's datastore (lease.go): after a
// crash of Hearth the ledger releases the coins of a spend never
// published; lightningd keeps its reservations, and its datastore, across
// its own restarts. A reservation adds 72 blocks and unreserveinputs takes them
// off: sendpsbt reserves again and, refused, takes its own off, so one
// release frees a refused spend's coins — but for a coin another spend
// in the mempool took, which stays reserved until that spend confirms.

// defaultTargetConf is the confirmation target of a spend that names no
// fee rate and no target.
const defaultTargetConf = 6

// prepared is a spend prepared and not yet published or released.
type prepared struct {
	txid, unsigned, signed string // the PSBTs before and after signpsbt
}

// spends are the prepared spends by lease.
type spends struct {
	mu      sync.Mutex
	byLease map[string]prepared
}

func (s *spends) put(lease string, p prepared) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byLease == nil {
		s.byLease = map[string]prepared{}
	}
	s.byLease[lease] = p
}

func (s *spends) get(lease string) (prepared, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.byLease[lease]
	return p, ok
}

// byTxID finds the spend of txid.
func (s *spends) byTxID(txid string) (string, prepared, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for lease, p := range s.byLease {
		if p.txid == txid {
			return lease, p, true
		}
	}
	return "", prepared{}, false
}

func (s *spends) drop(lease string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byLease, lease)
}

// PrepareSpend funds a transaction paying req, signs it, and returns it
// unpublished with its exact fee. RawTx is left empty: lightningd
// finalizes the signed PSBT itself when it sends it. On any failure after
// funding, the coins are released.
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
	sp, err := n.prepareOnce(ctx, lease, tp, req)
	var refused *signRefusal
	if errors.As(err, &refused) {
		// The node refused to sign what it had just prepared: another
		// program of the node took or freed one of its coins in between
		// (signpsbt signs reserved coins only). Once more, with others.
		sp, err = n.prepareOnce(ctx, lease, tp, req)
		if errors.As(err, &refused) {
			return nil, ErrCoinsChanged.Reasonf("The node's coins changed while the spend was prepared (%s); try again", refused.err.Message)
		}
	}
	return sp, err
}

// signRefusal is signpsbt's refusal of a transaction txprepare made.
type signRefusal struct{ err *RPCError }

func (e *signRefusal) Error() string { return "cln signpsbt: " + e.err.Error() }

// ErrCoinsChanged is a spend the node refused to sign twice, because
// another program of the node kept changing the coins it had chosen.
var ErrCoinsChanged = fault.New(fault.Conflict, "onchain_coins_changed", "The node's coins changed while the spend was prepared; try again")

// prepareOnce funds, remembers and signs one transaction; on any failure
// after funding its coins are released.
func (n *Node) prepareOnce(ctx context.Context, lease string, tp txprepareRequest, req ledger.SpendRequest) (*ledger.PreparedSpend, error) {
	var res txprepareResponse
	if err := n.call(ctx, tp, &res); err != nil {
		if code, ok := rpcCode(err); ok && code == 301 { // FUND_CANNOT_AFFORD
			return nil, ledger.ErrNoChainFunds
		}
		return nil, err
	}
	n.spends.put(lease, prepared{txid: res.TxID, unsigned: res.PSBT})
	err := n.rememberLease(ctx, lease, res.PSBT)
	var sp *ledger.PreparedSpend
	if err == nil {
		sp, err = n.sign(ctx, lease, res, req)
	}
	if err != nil {
		if rerr := n.ReleaseSpend(context.WithoutCancel(ctx), lease); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, err
	}
	return sp, nil
}

// sign signs a prepared spend, and measures its fee: the coins it spends
// (listfunds) less its outputs.
func (n *Node) sign(ctx context.Context, lease string, res txprepareResponse, req ledger.SpendRequest) (*ledger.PreparedSpend, error) {
	raw, err := hex.DecodeString(res.UnsignedTx)
	if err != nil {
		return nil, fmt.Errorf("txprepare's unsigned_tx: %w", err)
	}
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("txprepare's unsigned_tx: %w", err)
	}
	if tx.TxHash().String() != res.TxID {
		return nil, fmt.Errorf("txprepare answered txid %s for transaction %s", res.TxID, tx.TxHash())
	}
	var funds listfundsResponse
	if err := n.call(ctx, listfundsRequest{}, &funds); err != nil {
		return nil, err
	}
	coins := map[string]int64{}
	for _, o := range funds.Outputs {
		coins[o.TxID+":"+strconv.FormatUint(uint64(o.Output), 10)] = o.AmountMsat / 1000
	}
	var in, out int64
	for _, i := range tx.TxIn {
		v, ok := coins[i.PreviousOutPoint.String()]
		if !ok {
			return nil, fmt.Errorf("txprepare spends %s, which is not a coin of the wallet", i.PreviousOutPoint)
		}
		in += v
	}
	for _, o := range tx.TxOut {
		out += o.Value
	}
	if in < out {
		return nil, fmt.Errorf("txprepare's transaction spends %d sat and pays %d", in, out)
	}
	var signed signpsbtResponse
	if err := n.call(ctx, signpsbtRequest{PSBT: res.PSBT}, &signed); err != nil {
		var refused *RPCError
		if errors.As(err, &refused) {
			return nil, &signRefusal{refused}
		}
		return nil, err
	}
	n.spends.put(lease, prepared{txid: res.TxID, unsigned: res.PSBT, signed: signed.SignedPSBT})
	return &ledger.PreparedSpend{TxID: res.TxID, Address: req.Address, AmountSat: req.AmountSat, FeeSat: in - out}, nil
}

// PublishSpend broadcasts sp with sendpsbt. When the node refuses but
// knows the transaction, it was published; when it refuses and does not
// know it, the refusal is definite.
func (n *Node) PublishSpend(ctx context.Context, sp *ledger.PreparedSpend) error {
	lease, p, ok := n.spends.byTxID(sp.TxID)
	if !ok || p.signed == "" {
		return &ledger.PaymentFailure{Reason: "the spend was not prepared by this server"}
	}
	err := n.call(ctx, sendpsbtRequest{PSBT: p.signed}, nil)
	if err == nil {
		n.published(ctx, lease)
		return nil
	}
	var refused *RPCError
	if !errors.As(err, &refused) {
		return err // ambiguous
	}
	if _, lerr := n.LookupChainTx(ctx, sp.TxID); lerr == nil {
		n.published(ctx, lease)
		return nil
	} else if !errors.Is(lerr, ledger.ErrUnknownChainTx) {
		return fmt.Errorf("%w; then %w", err, lerr) // ambiguous
	}
	return &ledger.PaymentFailure{Reason: "the transaction was refused: " + refusal(refused.Message)}
}

// refusal is the words of sendpsbt's refusal to broadcast: bitcoind's
// answer, whose line breaks lightningd passes on escaped, without the
// whole transaction lightningd appends ("Unsent tx discarded <hex>").
func refusal(msg string) string {
	msg, _, _ = strings.Cut(msg, ". Unsent tx discarded")
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, `\n`, " ")), " ")
}

// published forgets a published spend; its coins are spent. A datastore
// entry left behind is harmless (a release of it finds its coins spent).
func (n *Node) published(ctx context.Context, lease string) {
	n.spends.drop(lease)
	if err := n.forgetLease(context.WithoutCancel(ctx), lease); err != nil {
		slog.WarnContext(ctx, "cln: forgetting a published spend", "lease", lease, "err", err)
	}
}

// ReleaseSpend unreserves the coins of the spend prepared under lease and
// not published: by this process, or by one before a crash (the PSBT kept
// in the node's datastore).
func (n *Node) ReleaseSpend(ctx context.Context, lease string) error {
	psbt := ""
	if p, ok := n.spends.get(lease); ok {
		psbt = p.unsigned
	} else {
		var err error
		if psbt, err = n.recallLease(ctx, lease); err != nil {
			return err
		}
		if psbt == "" {
			return nil
		}
	}
	if err := n.call(ctx, unreserveinputsRequest{PSBT: psbt}, nil); err != nil {
		return err
	}
	n.spends.drop(lease)
	return n.forgetLease(ctx, lease)
}
