package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// On-chain spends: a payment to a bitcoin address that a Resolver found
// (plugins/onchain). The node prepares the transaction first — coins
// leased under the payment's id, signed, its exact fee known — then the
// ledger reserves amount + that fee in one transaction, and only then is
// the transaction published. The payment stays Pending until its
// transaction has a confirmation (ReconcileSpends): then the amount is
// sent and the fee paid. A definite refusal to publish fails the payment
// and releases its reserve and its coins. A crash between the reserve
// and the publication loses nothing: a Pending spend whose transaction
// the node does not know, once older than any publication could take, is
// failed and its coins released; one the node knows goes on.

// OnchainTarget is an on-chain destination, as a Resolver found it.
type OnchainTarget struct {
	Address   string
	AmountSat int64
	// SatPerVByte is the fee rate; 0 for the node's estimate for
	// TargetConf blocks.
	SatPerVByte int64
	TargetConf  int32
}

// BitcoinPayment is the on-chain part of a payment record.
type BitcoinPayment struct {
	Address string `json:"address"`
	TxID    string `json:"txid"`
}

// presentSpend is the bitcoin object of an Onchain payment.
func presentSpend(p *Payment) *BitcoinPayment {
	b := &BitcoinPayment{}
	if p.BtcAddress != nil {
		b.Address = *p.BtcAddress
	}
	if p.BtcTxID != nil {
		b.TxID = *p.BtcTxID
	}
	return b
}

// onchainTarget is the target of a Resolver's on-chain answer.
func onchainTarget(o *OnchainTarget) (*target, error) {
	if o.Address == "" || o.AmountSat <= 0 {
		return nil, fmt.Errorf("a payment resolver answered an on-chain spend without an address or an amount")
	}
	return &target{onchain: o, amount: o.AmountSat * 1000}, nil
}

// spender returns the node's on-chain wallet, or ErrNoOnchain.
func (s *Service) spender() (ChainSpender, error) {
	cs, ok := s.node.(ChainSpender)
	if !ok {
		return nil, ErrNoOnchain
	}
	return cs, nil
}

func (t *target) spendRequest() SpendRequest {
	return SpendRequest{Address: t.onchain.Address, AmountSat: t.onchain.AmountSat, SatPerVByte: t.onchain.SatPerVByte,
		TargetConf: t.onchain.TargetConf}
}

// payOnchain prepares the spend, reserves amount + its exact fee, and
// publishes it.
func (s *Service) payOnchain(ctx context.Context, walletID string, t *target, req PayRequest, reqHash string) (*Payment, error) {
	cs, err := s.spender()
	if err != nil {
		return nil, err
	}
	// Lease no coin for a payment the wallet cannot make at all.
	var available int64
	if err := s.db.R.NewSelect().Table("wallets").Column("available_msat").Where("id = ?", walletID).Scan(ctx, &available); err != nil {
		return nil, fmt.Errorf("reading balance: %w", err)
	}
	if available < t.amount {
		return nil, ErrInsufficientFunds.Reasonf("Insufficient funds. Required: %d msat and the network fee", t.amount)
	}
	id := newID()
	sp, err := cs.PrepareSpend(ctx, id, t.spendRequest())
	if err != nil {
		return nil, err
	}
	release := func(why string) {
		if err := cs.ReleaseSpend(context.WithoutCancel(ctx), id); err != nil {
			s.log.WarnContext(ctx, "releasing an on-chain spend's coins", "payment_id", id, "why", why, "err", err)
		}
	}
	now := s.timestamp()
	fee := sp.FeeSat * 1000
	reserve := t.amount + fee
	p := &Payment{ID: id, WalletID: walletID, AmountMsat: t.amount, FeeMsat: &fee, Status: StatusPending, Ledger: LedgerOnchain,
		CreatedAt: now, ReservedMsat: reserve, RequestHash: &reqHash, BtcAddress: &sp.Address, BtcTxID: &sp.TxID}
	if req.IdempotencyKey != "" {
		p.IdempotencyKey = &req.IdempotencyKey
	}
	p.keep(req.asked)
	if err := s.reservePayment(ctx, p, req, now, "network fee", insertSpend); err != nil {
		release("not reserved")
		return nil, err
	}
	// Publishing must finish even if the client goes away.
	pubCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.PayTimeout)
	defer cancel()
	var failure *PaymentFailure
	switch err := cs.PublishSpend(pubCtx, sp); {
	case errors.As(err, &failure):
		if err := s.FailPayment(pubCtx, id, failure.Reason); err != nil {
			return nil, err
		}
		release("refused")
	case err != nil:
		s.log.WarnContext(ctx, "on-chain spend's publication unknown; left pending for reconciliation", "payment_id", id, "txid", sp.TxID, "err", err)
	}
	return s.Payment(ctx, walletID, id)
}

// insertSpend records an on-chain payment inside tx: a model insert, for
// its btc_txid, which insertPaymentSQL does not bind; a unique index's
// refusal is the ledger's error for it.
func insertSpend(ctx context.Context, tx bun.Tx, p *Payment) error {
	if _, err := tx.NewInsert().Model(p).Exec(ctx); err != nil {
		if store.IsUniqueViolation(err) {
			return uniqueRefusal(p.IdempotencyKey != nil)
		}
		return fmt.Errorf("recording payment: %w", err)
	}
	return nil
}

// estimateOnchain prepares the spend to read its fee, and releases it.
func (s *Service) estimateOnchain(ctx context.Context, t *target) (*FeeEstimate, error) {
	cs, err := s.spender()
	if err != nil {
		return nil, err
	}
	lease := "estimate " + newID()
	sp, err := cs.PrepareSpend(ctx, lease, t.spendRequest())
	if err != nil {
		return nil, err
	}
	if err := cs.ReleaseSpend(context.WithoutCancel(ctx), lease); err != nil {
		return nil, fmt.Errorf("releasing the estimate's coins: %w", err)
	}
	fee := sp.FeeSat * 1000
	return &FeeEstimate{Ledger: LedgerOnchain, AmountMsat: t.amount, EstimatedFeeMsat: &fee, MaximumFeeMsat: fee,
		MaximumTotalMsat: t.amount + fee}, nil
}

// PendingSpends returns the on-chain payments not yet confirmed.
func (s *Service) PendingSpends(ctx context.Context) ([]Payment, error) {
	var out []Payment
	err := s.db.R.NewSelect().Model(&out).Where("status = ?", StatusPending).Where("ledger = ?", LedgerOnchain).
		OrderExpr("created_at, id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing pending spends: %w", err)
	}
	return out, nil
}

// ReconcileSpends moves the Pending on-chain payments on: Settled once
// their transaction has a confirmation; Failed, with their reserve and
// coins released, when the node does not know their transaction and they
// are older than a publication can take (a crash between reserve and
// publication). listed are transactions the caller has just read from the
// node; with lookup, the node is asked about the others.
func (s *Service) ReconcileSpends(ctx context.Context, listed []ChainTx, lookup bool) error {
	cs, err := s.spender()
	if err != nil {
		return err
	}
	pending, err := s.PendingSpends(ctx)
	if err != nil || len(pending) == 0 {
		return err
	}
	known := make(map[string]ChainTx, len(listed))
	for _, tx := range listed {
		known[tx.TxID] = tx
	}
	var errs []error
	for _, p := range pending {
		if p.BtcTxID == nil {
			continue
		}
		tx, ok := known[*p.BtcTxID]
		if !ok && !lookup {
			continue
		}
		if !ok {
			found, err := cs.LookupChainTx(ctx, *p.BtcTxID)
			switch {
			case errors.Is(err, ErrUnknownChainTx):
				if s.now().Sub(p.CreatedAt) <= s.cfg.PayTimeout+time.Minute {
					continue // maybe still being published
				}
				if err := s.FailPayment(ctx, p.ID, "the transaction was never published"); err != nil {
					errs = append(errs, err)
					continue
				}
				if err := cs.ReleaseSpend(ctx, p.ID); err != nil {
					errs = append(errs, fmt.Errorf("releasing spend %s: %w", p.ID, err))
				}
				continue
			case err != nil:
				errs = append(errs, fmt.Errorf("looking up spend %s: %w", p.ID, err))
				continue
			}
			tx = *found
		}
		if tx.Confirmations < 1 {
			continue
		}
		fee := int64(0)
		if p.FeeMsat != nil {
			fee = *p.FeeMsat
		}
		if err := s.SettlePayment(ctx, p.ID, fee, ""); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
