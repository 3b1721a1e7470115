package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/fiat"
)

type walletRequest struct {
	UserID *string `json:"user_id"`
	Label  *string `json:"label,omitempty"`
}

// WalletPresenter fills what plugins add to wallet records (the
// Lightning Address): host.Registry, for its built-ins.
type WalletPresenter interface {
	PresentWallets(ctx context.Context, ws []*wallet.Wallet) error
}

// present lets the plugins fill their part of ws.
func (s *Server) present(ctx context.Context, ws ...*wallet.Wallet) error {
	if p, ok := s.plugins.(WalletPresenter); ok {
		return p.PresentWallets(ctx, ws)
	}
	return nil
}

func (s *Server) getMe(w http.ResponseWriter, req bunrouter.Request) error {
	return s.getWalletOf(w, req, callerWallet(req.Context()))
}

// balanceResponse is a balance, with its available amount in a currency
// when the query asks for one (?currency=EUR).
type balanceResponse struct {
	wallet.Balance
	Fiat *fiatBalance `json:"fiat,omitempty"`
}

// fiatBalance is the available balance in a currency at a rate.
type fiatBalance struct {
	Currency  string    `json:"currency"`
	Available string    `json:"available"`
	Rate      string    `json:"rate"`
	At        time.Time `json:"at"`
	Fixed     bool      `json:"fixed,omitempty"`
}

func (s *Server) getBalance(w http.ResponseWriter, req bunrouter.Request) error {
	q := req.URL.Query()
	currency, asked := q.Get("currency"), q.Has("currency")
	var rate ledger.Rate
	if asked { // before the balance: the balance is the freshest of the two
		var err error
		if rate, err = s.ledger.Rate(req.Context(), currency); err != nil {
			return err
		}
	}
	wal, err := s.wallets.Get(req.Context(), callerWallet(req.Context()))
	if err != nil {
		return err
	}
	out := balanceResponse{Balance: wal.Balance}
	if asked {
		available, err := fiat.Amount(wal.Balance.AvailableMsat, rate.Rate, rate.Currency)
		if err != nil {
			return fmt.Errorf("the balance in %s: %w", rate.Currency, err)
		}
		out.Fiat = &fiatBalance{Currency: rate.Currency, Available: available, Rate: rate.Rate, At: rate.At, Fixed: rate.Fixed}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) createWallet(w http.ResponseWriter, req bunrouter.Request) error {
	var body walletRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	if body.UserID == nil {
		return required("user_id")
	}
	wal, err := s.wallets.Create(req.Context(), *body.UserID, body.Label)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wal)
	return nil
}

func (s *Server) listWallets(w http.ResponseWriter, req bunrouter.Request) error {
	page, err := pageParams(req)
	if err != nil {
		return err
	}
	ws, err := s.wallets.List(req.Context(), page)
	if err != nil {
		return err
	}
	ptrs := make([]*wallet.Wallet, len(ws))
	for i := range ws {
		ptrs[i] = &ws[i]
	}
	if err := s.present(req.Context(), ptrs...); err != nil {
		return err
	}
	writePage(w, req, page, ws, func(w *wallet.Wallet) store.Cursor { return store.Cursor{CreatedAt: w.CreatedAt, ID: w.ID} })
	return nil
}

func (s *Server) getWallet(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req)
	if err != nil {
		return err
	}
	return s.getWalletOf(w, req, id)
}

// getWalletOf answers wallet id with what the plugins add to it: GET
// /v1/me (the caller's wallet) and GET /v1/wallets/{id} (any).
func (s *Server) getWalletOf(w http.ResponseWriter, req bunrouter.Request, id string) error {
	wal, err := s.wallets.Get(req.Context(), id)
	if err != nil {
		return err
	}
	if err := s.present(req.Context(), wal); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wal)
	return nil
}

func (s *Server) deleteWallet(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req)
	if err != nil {
		return err
	}
	if err := s.wallets.Delete(req.Context(), id); err != nil {
		return err
	}
	return noContent(w)
}
