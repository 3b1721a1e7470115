package host

import (
	"context"
	"errors"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/ledger"
)

// A delegation is a credential a user gives a plugin through one of its
// authenticated routes, so that the plugin can act for that user later,
// without them: a wallet connection (NWC) pays from the user's wallet
// when an app asks, long after the request that made it. It is an API key
// held by the plugin (its secret is never made known to anyone): scoped
// within the user's own permissions, optionally budgeted and expiring,
// revocable by the user through the plugin at any time. A plugin reaches
// only its own delegations, and acting with one gives it the key's powers
// ∩ its own grant, the key's budget included: the ledger enforces it as for
// any budgeted key.

// Credentials is what delegations need of the API keys (core/auth).
type Credentials interface {
	Delegate(ctx context.Context, creator *auth.Principal, plugin string, req auth.NewKey) (*auth.APIKey, error)
	Delegated(ctx context.Context, plugin, id string) (*auth.APIKey, string, error)
	RevokeDelegated(ctx context.Context, plugin, id string) error
	ChangeDelegated(ctx context.Context, plugin, id string, ch auth.KeyChange) (*auth.APIKey, error)
}

// NewDelegation asks for a delegation (Caller.Delegate).
type NewDelegation struct {
	Name string
	// Permissions are scope names, within the caller's scopes and the
	// plugin's grant.
	Permissions []string
	Budget      *budget.Spec
	// ExpiresAt, when set, ends the delegation then (at most a year ahead).
	ExpiresAt *time.Time
	// WalletID, for an admin caller only, is the wallet of another user
	// to delegate for; empty for the caller's own.
	WalletID string
}

// Delegation is a credential a plugin holds for a user.
type Delegation struct {
	ID          string         `json:"id"`
	UserID      string         `json:"user_id"`
	WalletID    string         `json:"wallet_id"`
	Name        string         `json:"name"`
	Permissions []string       `json:"permissions"`
	Budget      *budget.Status `json:"budget,omitempty"`
	ExpiresAt   *time.Time     `json:"expires_at,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
}

// Delegate makes a delegation for the caller of the route the plugin
// serves (caller:act and credential:delegate; the caller must hold
// write:api_key). Permissions beyond the caller's or the grant's are 422
// permission_exceeded, as for an API key.
func (c *Caller) Delegate(ctx context.Context, req NewDelegation) (*Delegation, error) {
	creds, err := c.credentials(ctx, "delegate")
	if err != nil {
		return nil, err
	}
	if c.caller == nil {
		return nil, callErrorf("invalid", "delegate: only while serving an authenticated route of the plugin")
	}
	if err := c.allow(ctx, need{scope: auth.WriteAPIKey, what: "delegate"}); err != nil {
		return nil, err
	}
	creator := &auth.Principal{UserID: c.caller.UserID, Admin: c.caller.Admin,
		Scopes: c.caller.Scopes & c.p.Grant().Scopes, Budgeted: c.caller.Budget != nil}
	nk := auth.NewKey{Name: req.Name, Permissions: req.Permissions, Budget: req.Budget}
	walletID := c.caller.WalletID
	if req.WalletID != "" && req.WalletID != walletID {
		if !c.caller.Admin {
			return nil, auth.ErrKeyScopeExceeded.Reasonf("only the admin delegates for another wallet")
		}
		w, err := c.api.wallets.Get(ctx, req.WalletID)
		if err != nil {
			return nil, err
		}
		nk.UserID, walletID = w.UserID, w.ID
	}
	if walletID == "" {
		return nil, auth.ErrKeyInvalid.Reasonf("the user has no wallet yet")
	}
	if req.ExpiresAt != nil {
		secs := int64(time.Until(*req.ExpiresAt) / time.Second)
		if secs <= 0 {
			return nil, auth.ErrKeyInvalid.Reasonf("expires_at must be in the future")
		}
		nk.Expiry = &secs
	}
	key, err := creds.Delegate(ctx, creator, c.p.Name, nk)
	if err != nil {
		return nil, err
	}
	return delegationOf(key, walletID), nil
}

// Delegation reads one of the plugin's live delegations, with its budget
// as used now; ErrDelegationNotFound when it is not the plugin's, was
// revoked or has expired.
func (c *Caller) Delegation(ctx context.Context, id string) (*Delegation, error) {
	creds, err := c.credentials(ctx, "delegation")
	if err != nil {
		return nil, err
	}
	key, walletID, err := creds.Delegated(ctx, c.p.Name, id)
	if err != nil {
		return nil, delegationErr(err)
	}
	return delegationOf(key, walletID), nil
}

// RevokeDelegation ends one of the plugin's delegations at once.
func (c *Caller) RevokeDelegation(ctx context.Context, id string) error {
	creds, err := c.credentials(ctx, "revoke_delegation")
	if err != nil {
		return err
	}
	return delegationErr(creds.RevokeDelegated(ctx, c.p.Name, id))
}

// ActAs returns the host API acting with one of the plugin's delegations:
// on its user's wallet, with its permissions ∩ the plugin's grant, its
// payments counted against its budget. The delegation is checked now: a
// revoked or expired one is ErrDelegationNotFound.
func (c *Caller) ActAs(ctx context.Context, id string) (*Caller, error) {
	creds, err := c.credentials(ctx, "act_as")
	if err != nil {
		return nil, err
	}
	key, walletID, err := creds.Delegated(ctx, c.p.Name, id)
	if err != nil {
		return nil, delegationErr(err)
	}
	pr := &Principal{UserID: key.UserID, WalletID: walletID, Scopes: key.Permissions, KeyID: key.ID}
	if key.Budget != nil {
		pr.Budget = &ledger.Budget{KeyID: key.ID, Renewal: key.Budget.Renewal}
	}
	return &Caller{api: c.api, p: c.p, caller: pr, delegated: true}, nil
}

// ErrDelegationNotFound is the code of a delegation that is not the
// plugin's, was revoked, or has expired.
const ErrDelegationNotFound = "not_found"

func delegationErr(err error) error {
	if errors.Is(err, auth.ErrKeyNotFound) {
		return callErrorf(ErrDelegationNotFound, "no such delegation")
	}
	return err
}

func (c *Caller) credentials(ctx context.Context, what string) (Credentials, error) {
	if err := c.allowCap(ctx, CredentialDelegate, what); err != nil {
		return nil, err
	}
	if c.api.creds == nil {
		return nil, callErrorf("unavailable", "the host keeps no credentials")
	}
	return c.api.creds, nil
}

func delegationOf(k *auth.APIKey, walletID string) *Delegation {
	return &Delegation{ID: k.ID, UserID: k.UserID, WalletID: walletID, Name: k.Name,
		Permissions: k.Permissions.Names(), Budget: k.Budget, ExpiresAt: k.ExpiresAt, CreatedAt: k.CreatedAt}
}

// ActFor returns the host API bound to the same plugin acting for pr, the
// caller of one of its authenticated routes: its calls act on the caller's
// wallet, within the caller's scopes ∩ the grant, and each needs the
// capability caller:act. It is the one way to act for a caller: a
// built-in's route handler calls it, and the ABI's dispatch for a
// WebAssembly plugin's route call. A nil pr acts for no one.
func (c *Caller) ActFor(pr *Principal) *Caller { return &Caller{api: c.api, p: c.p, caller: pr} }
