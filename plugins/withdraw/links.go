package withdraw

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/lud01"
)

// Link is a withdraw link as the API shows it.
type Link struct {
	ID          string     `json:"id"`
	WalletID    string     `json:"wallet_id"`
	Title       string     `json:"title"`
	MinMsat     int64      `json:"min_msat"`
	MaxMsat     int64      `json:"max_msat"`
	Uses        int        `json:"uses"`
	Used        int        `json:"used"`
	WaitSeconds int        `json:"wait_seconds"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	// LNURL is the link's URL as LUD-01's bech32 (upper case, for QR
	// codes), and LNURLW as LUD-17's lnurlw:// URL.
	LNURL     string    `json:"lnurl"`
	LNURLW    string    `json:"lnurlw"`
	CreatedAt time.Time `json:"created_at"`
	// Claims are its uses, newest first: on the record of one link.
	Claims []Claim `json:"claims,omitempty"`
}

// Claim is one use of a link.
type Claim struct {
	ID          string     `json:"id"`
	State       string     `json:"state"` // pending, paid or failed
	AmountMsat  int64      `json:"amount_msat"`
	PaymentHash string     `json:"payment_hash"`
	PaymentID   *string    `json:"payment_id,omitempty"`
	Error       *string    `json:"error,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	DoneAt      *time.Time `json:"done_at,omitempty"`
}

// CreateRequest makes a link of the caller's wallet, or count single-use
// vouchers.
type CreateRequest struct {
	Title       *string    `json:"title"`
	MinMsat     *int64     `json:"min_msat"`
	MaxMsat     *int64     `json:"max_msat"`
	Uses        *int       `json:"uses,omitempty"`
	WaitSeconds *int       `json:"wait_seconds,omitempty"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	Count       *int       `json:"count,omitempty"`
}

// AdminCreateRequest makes links of any wallet.
type AdminCreateRequest struct {
	WalletID *string `json:"wallet_id"`
	CreateRequest
}

// Limits of a link.
const (
	maxTitle = 120
	maxUses  = 10_000
	maxWait  = 30 * 24 * 3600
	// maxClaimsShown bounds the claims on a link's record.
	maxClaimsShown = 100
)

// routes are the plugin's routes: the caller's links under /v1/me, every
// wallet's under /v1/withdraw-links (admin), and LUD-03's (lud03.go).
func (p *Plugin) routes() []host.BuiltinRoute {
	const me, all = "/v1/me/withdraw-links", "/v1/withdraw-links"
	mine, anyWallet := host.Mine, host.AnyWallet
	return append([]host.BuiltinRoute{
		{Method: "POST", Path: me, Access: host.User, Scope: auth.WriteTransaction, Status: http.StatusCreated,
			Summary: "Make a withdraw link of the caller's wallet, or count single-use vouchers (an array); the caller needs write:api_key too (a link is a credential)",
			Body:    CreateRequest{}, Resp: Link{}, Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				return p.create(ctx, req, req.Caller.WalletID, req.Body.(*CreateRequest))
			}},
		{Method: "GET", Path: me, Access: host.User, Scope: auth.ReadTransaction, Status: http.StatusOK,
			Summary: "List the caller's live withdraw links, newest first", Query: host.ListQuery, Resp: []Link{}, Handle: mine(p.list)},
		{Method: "GET", Path: me + "/{id}", Access: host.User, Scope: auth.ReadTransaction, Status: http.StatusOK,
			Summary: "One of the caller's withdraw links, with its claims", Resp: Link{}, Handle: mine(p.get)},
		{Method: "DELETE", Path: me + "/{id}", Access: host.User, Scope: auth.WriteTransaction, Status: http.StatusNoContent,
			Summary: "Revoke one of the caller's withdraw links: refused at once, a claim not paid yet included", Handle: mine(p.delete)},

		{Method: "POST", Path: "/v1/me/lnurl-withdraw", Access: host.User, Scope: auth.WriteTransaction, Status: http.StatusAccepted,
			Summary: "Claim someone else's withdraw link (lnurl1…, lnurlw://… or https) into the caller's wallet: the invoice, Pending until the link's side pays it",
			Body:    PullRequest{}, Resp: ledger.Invoice{}, Handle: p.pull},

		{Method: "POST", Path: all, Access: host.Admin, Scope: auth.WriteTransaction, Status: http.StatusCreated,
			Summary: "Make a withdraw link (or vouchers) of any wallet (wallet_id)", Body: AdminCreateRequest{}, Resp: Link{},
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				b := req.Body.(*AdminCreateRequest)
				if b.WalletID == nil {
					return nil, fault.Invalidf("wallet_id is required")
				}
				id, err := host.ParseUUID(*b.WalletID, "wallet_id")
				if err != nil {
					return nil, err
				}
				if err := p.exists(ctx, id); err != nil {
					return nil, err
				}
				return p.create(ctx, req, id, &b.CreateRequest)
			}},
		{Method: "GET", Path: all, Access: host.Admin, Scope: auth.ReadTransaction, Status: http.StatusOK,
			Summary: "List the live withdraw links of every wallet, or of wallet_id", Query: append([]string{"wallet_id"}, host.ListQuery...),
			Resp: []Link{}, Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				id, err := req.QueryUUID("wallet_id")
				if err != nil {
					return nil, err
				}
				return p.list(ctx, req, id)
			}},
		{Method: "GET", Path: all + "/{id}", Access: host.Admin, Scope: auth.ReadTransaction, Status: http.StatusOK,
			Summary: "Any withdraw link, with its claims", Resp: Link{}, Handle: anyWallet(p.get)},
		{Method: "DELETE", Path: all + "/{id}", Access: host.Admin, Scope: auth.WriteTransaction, Status: http.StatusNoContent,
			Summary: "Revoke any withdraw link", Handle: anyWallet(p.delete)},
	}, p.publicRoutes()...)
}

// create makes the links b asks for, in walletID, each with a delegation
// of the caller's whose budget (never renewed) is what the link may pay.
func (p *Plugin) create(ctx context.Context, req *host.BuiltinRequest, walletID string, b *CreateRequest) (any, error) {
	spec, count, err := p.checkCreate(b)
	if err != nil {
		return nil, err
	}
	act := p.host.ActFor(req.Caller)
	now := p.cfg.Now().UTC().Truncate(time.Microsecond)
	rows := make([]linkRow, 0, count)
	undo := func() {
		for _, r := range rows {
			_ = act.RevokeDelegation(context.WithoutCancel(ctx), r.DelegationID)
		}
	}
	for range count {
		d, err := act.Delegate(ctx, host.NewDelegation{Name: "withdraw: " + spec.Title,
			Permissions: []string{auth.ReadWallet.String(), auth.WriteTransaction.String()},
			Budget:      &budget.Spec{MaxMsat: int64(spec.Uses) * spec.MaxMsat, Renewal: budget.Never},
			ExpiresAt:   spec.ExpiresAt, WalletID: walletID})
		if err != nil {
			undo()
			return nil, err
		}
		r := spec
		r.ID, r.WalletID, r.Token, r.K1, r.DelegationID, r.CreatedAt = uuid.Must(uuid.NewV7()).String(), walletID,
			randomHex(16), randomHex(32), d.ID, now
		rows = append(rows, r)
	}
	if err := p.insertLinks(ctx, rows); err != nil {
		undo()
		return nil, err
	}
	if b.Count == nil {
		return p.api(&rows[0], nil)
	}
	out := make([]*Link, len(rows))
	for i := range rows {
		if out[i], err = p.api(&rows[i], nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkCreate checks b and returns the link it asks for (without its
// identity) and how many.
func (p *Plugin) checkCreate(b *CreateRequest) (linkRow, int, error) {
	r := linkRow{Title: "Withdraw", Uses: 1}
	if b.Title != nil {
		r.Title = strings.TrimSpace(*b.Title)
	}
	if r.Title == "" || utf8.RuneCountInString(r.Title) > maxTitle {
		return r, 0, fault.Invalidf("title must be 1 to %d characters", maxTitle)
	}
	if b.MinMsat == nil || b.MaxMsat == nil {
		return r, 0, fault.Invalidf("min_msat and max_msat are required")
	}
	r.MinMsat, r.MaxMsat = *b.MinMsat, *b.MaxMsat
	count := 1
	if b.Count != nil {
		count = *b.Count
	}
	if b.Uses != nil {
		r.Uses = *b.Uses
	}
	if b.WaitSeconds != nil {
		r.WaitSeconds = *b.WaitSeconds
	}
	switch {
	case r.MinMsat < 1000 || r.MaxMsat < r.MinMsat:
		return r, 0, fault.Invalidf("min_msat must be at least 1000 and max_msat at least min_msat")
	case r.Uses < 1 || r.Uses > maxUses:
		return r, 0, fault.Invalidf("uses must be between 1 and %d", maxUses)
	case r.MaxMsat > budget.MaxMsat/int64(r.Uses):
		return r, 0, fault.Invalidf("uses × max_msat is more than there are bitcoin")
	case r.WaitSeconds < 0 || r.WaitSeconds > maxWait:
		return r, 0, fault.Invalidf("wait_seconds must be between 0 and %d", maxWait)
	case count < 1 || count > p.cfg.MaxVouchers:
		return r, 0, fault.Invalidf("count must be between 1 and %d", p.cfg.MaxVouchers)
	case count > 1 && r.Uses != 1:
		return r, 0, fault.Invalidf("vouchers (count > 1) are single-use: leave uses out or 1")
	}
	if b.ExpiresAt != nil {
		at := b.ExpiresAt.UTC().Truncate(time.Microsecond)
		if now := p.cfg.Now(); !at.After(now) || at.After(now.AddDate(1, 0, 0)) {
			return r, 0, fault.Invalidf("expires_at must be in the future, within a year")
		}
		r.ExpiresAt = &at
	}
	return r, count, nil
}

func (p *Plugin) list(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	page, err := req.Page()
	if err != nil {
		return nil, err
	}
	rs, err := p.links(ctx, walletID, page)
	if err != nil {
		return nil, err
	}
	out := make([]*Link, len(rs))
	for i := range rs {
		if out[i], err = p.api(&rs[i], nil); err != nil {
			return nil, err
		}
	}
	return host.List(page, out, func(l **Link) store.Cursor { return store.Cursor{CreatedAt: (*l).CreatedAt, ID: (*l).ID} }), nil
}

// linkOf reads the live link the route's path names, of walletID unless
// walletID is "".
func (p *Plugin) linkOf(ctx context.Context, req *host.BuiltinRequest, walletID string) (*linkRow, error) {
	id, err := req.PathUUID("id")
	if err != nil {
		return nil, err
	}
	return p.link(ctx, id, walletID)
}

func (p *Plugin) get(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	l, err := p.linkOf(ctx, req, walletID)
	if err != nil {
		return nil, err
	}
	cs, err := p.claims(ctx, l.ID, maxClaimsShown)
	if err != nil {
		return nil, err
	}
	return p.api(l, cs)
}

// delete revokes the link's credential, then the link: a claim not paid
// yet is refused by the ledger from the first step on.
func (p *Plugin) delete(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	l, err := p.linkOf(ctx, req, walletID)
	if err != nil {
		return nil, err
	}
	if err := p.host.RevokeDelegation(ctx, l.DelegationID); err != nil {
		var ce *host.CallError
		if !errors.As(err, &ce) || ce.Code != host.ErrDelegationNotFound {
			return nil, err
		}
	}
	if ok, err := p.revoke(ctx, l.ID, p.cfg.Now().UTC()); err != nil {
		return nil, err
	} else if !ok {
		return nil, ErrNotFound
	}
	return nil, nil
}

// api is the record of l, with its claims cs.
func (p *Plugin) api(l *linkRow, cs []claimRow) (*Link, error) {
	u := p.linkURL(l)
	bech, err := lud01.Encode(u)
	if err != nil {
		return nil, err
	}
	out := &Link{ID: l.ID, WalletID: l.WalletID, Title: l.Title, MinMsat: l.MinMsat, MaxMsat: l.MaxMsat, Uses: l.Uses,
		Used: l.Used, WaitSeconds: l.WaitSeconds, ExpiresAt: l.ExpiresAt, LNURL: bech, LNURLW: lud17(u), CreatedAt: l.CreatedAt}
	for i := range cs {
		out.Claims = append(out.Claims, cs[i].api())
	}
	return out, nil
}

// api is the record of c.
func (c *claimRow) api() Claim {
	return Claim{ID: c.ID, State: c.State, AmountMsat: c.AmountMsat, PaymentHash: c.PaymentHash,
		PaymentID: c.PaymentID, Error: c.Error, CreatedAt: c.CreatedAt, DoneAt: c.DoneAt}
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
