package host

import (
	"context"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/patch"
)

// DelegationChange changes one of the plugin's delegations
// (Caller.ChangeDelegation): what it leaves unset keeps its value.
type DelegationChange struct {
	Name *string
	// Permissions, when not nil, replace the delegation's: scope names
	// within the caller's scopes and the plugin's grant.
	Permissions []string
	// Budget sets the budget (what was used in the current period stays
	// used) or, null, removes it.
	Budget patch.Field[budget.Spec]
	// ExpiresAt moves the delegation's end or, null, removes it.
	ExpiresAt patch.Field[time.Time]
}

// ChangeDelegation changes one of the plugin's live delegations for the
// caller of the route the plugin serves (caller:act and
// credential:delegate; the caller must hold write:api_key and own the
// delegation's wallet, or be the admin). The change is one conditional
// update of the delegation's key, the row each payment's budget charge
// updates, so a payment racing it is checked against the budget in force
// when it commits. The answer is the delegation as changed, its budget's
// use as of that instant.
func (c *Caller) ChangeDelegation(ctx context.Context, id string, ch DelegationChange) (*Delegation, error) {
	creds, err := c.credentials(ctx, "change_delegation")
	if err != nil {
		return nil, err
	}
	if c.caller == nil {
		return nil, callErrorf("invalid", "change_delegation: only while serving an authenticated route of the plugin")
	}
	if err := c.allow(ctx, need{scope: auth.WriteAPIKey, what: "change_delegation"}); err != nil {
		return nil, err
	}
	key, walletID, err := creds.Delegated(ctx, c.p.Name, id)
	if err != nil {
		return nil, delegationErr(err)
	}
	if key.UserID != c.caller.UserID && !c.caller.Admin {
		return nil, delegationErr(auth.ErrKeyNotFound)
	}
	kc := auth.KeyChange{Name: ch.Name, Budget: ch.Budget, ExpiresAt: ch.ExpiresAt}
	budgeted := c.caller.Budget != nil
	if budgeted && ch.Budget.Set {
		// It would free the delegation, or itself, of what bounds it.
		return nil, auth.ErrKeyScopeExceeded.Reasonf("A credential with a budget cannot change budgets")
	}
	if ch.Permissions != nil {
		scopes, err := auth.ParseScopes(ch.Permissions)
		if err != nil {
			return nil, auth.ErrKeyInvalid.Reasonf("%s", err.Error())
		}
		if own := c.caller.Scopes & c.p.Grant().Scopes; !own.Covers(scopes) {
			return nil, auth.ErrKeyScopeExceeded.Reasonf("The requested permissions exceed your own: %v", (scopes &^ own).Names())
		}
		if budgeted && scopes.Has(auth.WriteTransaction) {
			return nil, auth.ErrKeyScopeExceeded.Reasonf("A key with a budget cannot make keys that pay (write:transaction)")
		}
		kc.Permissions = &scopes
	}
	changed, err := creds.ChangeDelegated(ctx, c.p.Name, id, kc)
	if err != nil {
		return nil, delegationErr(err)
	}
	return delegationOf(changed, walletID), nil
}
