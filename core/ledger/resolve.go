package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/uptrace/bun"
)

// Resolver turns a payment input that is no BOLT11 invoice (a Lightning
// Address, an LNURL; later an on-chain destination) into what the ledger
// pays. Resolvers are registered at wiring time (AddResolver) by the
// plugins that know the inputs; the ledger knows none of them. They are
// asked, in the order added, after ParseInput found no BOLT11 invoice.
type Resolver interface {
	// ResolvePayment answers ErrUnsupportedInput, and does nothing, when
	// req.Input is not of its kind. estimate is set for a fee estimate:
	// the resolver may then answer Internal with no invoice, instead of
	// making one in the payee's wallet.
	ResolvePayment(ctx context.Context, walletID string, req PayRequest, estimate bool) (*Resolved, error)
}

// Resolved is what a Resolver found an input to be.
type Resolved struct {
	// Bolt11 is the invoice to pay: one of this instance (paid inside it)
	// or of any other node. Its amount must be AmountMsat.
	Bolt11 string
	// Internal, with no Bolt11, answers an estimate: a payment of
	// AmountMsat inside the instance.
	Internal   bool
	AmountMsat int64
	// LnAddress is kept on the payment record (lightning.ln_address or
	// internal.ln_address).
	LnAddress string
	// SuccessAction is kept on the payment record
	// (lightning.success_action): a JSON object.
	SuccessAction json.RawMessage
	// Onchain, instead of Bolt11, is an on-chain spend (spend.go).
	Onchain *OnchainTarget
	// BtcAddress is the deposit address of this instance that Bolt11 pays
	// inside it (internal.btc_address).
	BtcAddress string
	// Finish, when set, is called once the payment settled at once, with
	// the preimage; what it returns replaces the success action kept (an
	// LNURL aes action, decrypted).
	Finish func(preimage string) json.RawMessage
}

// resolvers are the registered Resolvers.
type resolvers struct {
	mu   sync.RWMutex
	list []Resolver
}

// AddResolver registers r for the inputs that are no BOLT11 invoice.
func (s *Service) AddResolver(r Resolver) {
	s.resolvers.mu.Lock()
	defer s.resolvers.mu.Unlock()
	s.resolvers.list = append(s.resolvers.list, r)
}

// resolveOther asks the resolvers about an input that is no BOLT11
// invoice, and resolves the invoice the first one answers; when none
// takes it, the answer is notBolt11, ParseInput's error, which may say
// why the input is no invoice.
func (s *Service) resolveOther(ctx context.Context, walletID string, req PayRequest, estimate bool, notBolt11 error) (*target, error) {
	s.resolvers.mu.RLock()
	list := append([]Resolver(nil), s.resolvers.list...)
	s.resolvers.mu.RUnlock()
	for _, r := range list {
		res, err := r.ResolvePayment(ctx, walletID, req, estimate)
		if errors.Is(err, ErrUnsupportedInput) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return s.resolved(ctx, walletID, req, res)
	}
	return nil, notBolt11
}

// resolved turns a resolver's answer into a target.
func (s *Service) resolved(ctx context.Context, walletID string, req PayRequest, res *Resolved) (*target, error) {
	var t *target
	if res.Onchain != nil {
		return onchainTarget(res.Onchain)
	}
	if res.Bolt11 == "" {
		if !res.Internal || res.AmountMsat <= 0 {
			return nil, fmt.Errorf("a payment resolver answered neither an invoice nor an internal amount")
		}
		t = &target{amount: res.AmountMsat, inside: true}
	} else {
		in, err := ParseInput(res.Bolt11)
		if err != nil {
			return nil, ErrUnsupportedInput.Reasonf("The payee's server gave no BOLT11 invoice")
		}
		amount := res.AmountMsat
		if t, err = s.resolveBolt11(ctx, walletID, in, PayRequest{Input: res.Bolt11, AmountMsat: &amount}, true); err != nil {
			return nil, err
		}
	}
	if res.LnAddress != "" {
		t.lnAddress = &res.LnAddress
	}
	if res.BtcAddress != "" {
		t.btcAddress = &res.BtcAddress
	}
	if len(res.SuccessAction) > 0 {
		sa := string(res.SuccessAction)
		t.successAction = &sa
	}
	t.finish = res.Finish
	return t, nil
}

// finishSuccessAction keeps what t.finish makes of a settled payment's
// success action. A payment still Pending keeps its hook until it settles
// in this process (SettlePayment); after a restart its action stays as the
// server gave it.
func (s *Service) finishSuccessAction(ctx context.Context, t *target, p *Payment) *Payment {
	if t.finish == nil {
		return p
	}
	if p.Status == StatusPending {
		s.finishers.Store(p.ID, t.finish)
		// It may have settled meanwhile, before the hook was there.
		if now, err := s.Payment(ctx, p.WalletID, p.ID); err == nil && now.Status == StatusSettled {
			s.runFinisher(ctx, p.ID, now.PaymentPreimage)
		}
		return p
	}
	if p.Status != StatusSettled || p.PaymentPreimage == nil {
		return p
	}
	text := s.keepSuccessAction(ctx, p.ID, t.finish, *p.PaymentPreimage)
	if text == nil {
		return p
	}
	p.SuccessAction = text
	p.Lightning, p.Internal = nil, nil
	return p.present()
}

// runFinisher runs the hook a Pending payment left, once it settled.
func (s *Service) runFinisher(ctx context.Context, id string, preimage *string) {
	f, ok := s.finishers.LoadAndDelete(id)
	if !ok || preimage == nil {
		return
	}
	s.keepSuccessAction(ctx, id, f.(func(string) json.RawMessage), *preimage)
}

// keepSuccessAction stores what finish makes of the preimage as the
// payment's success action; nil when it made nothing or the write failed.
func (s *Service) keepSuccessAction(ctx context.Context, id string, finish func(string) json.RawMessage, preimage string) *string {
	sa := finish(preimage)
	if len(sa) == 0 {
		return nil
	}
	text := string(sa)
	_, err := s.db.Write(context.WithoutCancel(ctx), func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model((*Payment)(nil)).Set("success_action = ?", text).Where("id = ?", id).Exec(ctx)
	})
	if err != nil {
		s.log.WarnContext(ctx, "keeping a payment's success action", "payment_id", id, "err", err)
		return nil
	}
	return &text
}
