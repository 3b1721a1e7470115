package rates

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/fiat"
)

// A wallet's currency: what its owner reads amounts in (the dashboard
// shows them beside sats and lets them be typed in it). A wallet whose
// owner chose none reads the instance's ([rates] currency).

// WalletCurrency is a wallet's currency as GET /v1/me/currency shows it.
type WalletCurrency struct {
	Currency string `json:"currency"`
	// Default says the wallet reads the instance's currency, having chosen
	// none.
	Default bool `json:"default"`
	// Instance is the instance's currency ([rates] currency).
	Instance string `json:"instance"`
	// Offered are the currencies the instance has rates for.
	Offered []string `json:"offered"`
}

// currencyRequest is PUT /v1/me/currency's body: null goes back to the
// instance's.
type currencyRequest struct {
	Currency *string `json:"currency"`
}

// currencyRow is a wallet's chosen currency.
type currencyRow struct {
	bun.BaseModel `bun:"table:rates_wallet_currency"`
	WalletID      string    `bun:"wallet_id,pk"`
	Currency      string    `bun:"currency"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// Currency is walletID's currency.
func (r *Rates) Currency(ctx context.Context, walletID string) (WalletCurrency, error) {
	out := WalletCurrency{Currency: r.cfg.Default, Default: true, Instance: r.cfg.Default, Offered: r.Currencies()}
	var row currencyRow
	err := r.db.R.NewSelect().Model(&row).Where("wallet_id = ?", walletID).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return out, nil
	case err != nil:
		return out, err
	}
	if slices.Contains(out.Offered, row.Currency) { // else the operator stopped offering it
		out.Currency, out.Default = row.Currency, false
	}
	return out, nil
}

// SetCurrency sets walletID's currency: one offered, or nil for the
// instance's.
func (r *Rates) SetCurrency(ctx context.Context, walletID string, currency *string) (WalletCurrency, error) {
	if currency == nil {
		_, err := r.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
			return w.NewDelete().Model((*currencyRow)(nil)).Where("wallet_id = ?", walletID).Exec(ctx)
		})
		if err != nil {
			return WalletCurrency{}, err
		}
		return r.Currency(ctx, walletID)
	}
	code, ok := fiat.Currency(*currency)
	if !ok {
		return WalletCurrency{}, fault.Invalidf("currency is a three-letter ISO 4217 code, e.g. EUR, or null")
	}
	if !slices.Contains(r.cfg.Currencies, code) {
		return WalletCurrency{}, ledger.ErrUnknownCurrency.Reasonf("This instance offers no rate for %s: it offers %v", code, r.cfg.Currencies)
	}
	row := &currencyRow{WalletID: walletID, Currency: code, UpdatedAt: r.cfg.Now().UTC()}
	_, err := r.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(row).On("CONFLICT (wallet_id) DO UPDATE").
			Set("currency = EXCLUDED.currency").Set("updated_at = EXCLUDED.updated_at").Exec(ctx)
	})
	if err != nil {
		return WalletCurrency{}, err
	}
	return r.Currency(ctx, walletID)
}

// presentWallets fills each wallet record's currency (wallet:present): its
// owner's choice, else the instance's.
func (r *Rates) presentWallets(ctx context.Context, ws []*wallet.Wallet) error {
	ids := make([]string, len(ws))
	for i, w := range ws {
		ids[i] = w.ID
	}
	of, err := r.currencies(ctx, ids)
	if err != nil {
		return err
	}
	for _, w := range ws {
		if c := of[w.ID]; c != "" {
			w.Currency = &c
		}
	}
	return nil
}

// currencies are the currencies of the wallets ids, by wallet: each
// owner's choice among those offered, else the instance's ("" for none).
func (r *Rates) currencies(ctx context.Context, ids []string) (map[string]string, error) {
	var rows []currencyRow
	if err := r.db.R.NewSelect().Model(&rows).Where("wallet_id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading the wallets' currencies: %w", err)
	}
	of := make(map[string]string, len(ids))
	for _, id := range ids {
		of[id] = r.cfg.Default
	}
	for _, row := range rows {
		if slices.Contains(r.cfg.Currencies, row.Currency) {
			of[row.WalletID] = row.Currency
		}
	}
	return of, nil
}

// currencyRoutes are GET and PUT /v1/me/currency.
func (r *Rates) currencyRoutes() []host.BuiltinRoute {
	return []host.BuiltinRoute{
		{Method: http.MethodGet, Path: "/v1/me/currency", Access: host.User, Scope: auth.ReadWallet, Status: http.StatusOK,
			Resp: WalletCurrency{}, Summary: "The currency the caller's wallet reads amounts in, and those offered",
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				return r.Currency(ctx, req.Caller.WalletID)
			}},
		{Method: http.MethodPut, Path: "/v1/me/currency", Access: host.User, Scope: auth.WriteWallet, Status: http.StatusOK,
			Body: currencyRequest{}, Resp: WalletCurrency{},
			Summary: "Set the currency the caller's wallet reads amounts in (one offered; null: the instance's)",
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				return r.SetCurrency(ctx, req.Caller.WalletID, req.Body.(*currencyRequest).Currency)
			}},
	}
}
