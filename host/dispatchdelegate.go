package host

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hearthwallet/hearth/core/budget"
)

// The host functions of delegations (ABI hearth_v2): what a WebAssembly
// plugin granted credential:delegate calls to keep a credential its
// route's caller gives it and to act with it later, as a built-in does
// through Caller.Delegate and ActAs.
func init() {
	for name, fn := range delegationOps {
		ops[name] = fn
		v2Only[name] = true
	}
}

// actAsOps are the host functions a plugin may call acting with a
// delegation: the wallet's, within the delegation's permissions.
var actAsOps = map[string]bool{"wallet": true, "create_invoice": true, "pay": true, "invoices": true, "payments": true}

var delegationOps = map[string]op{
	"delegate": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Name        string       `json:"name"`
			Permissions []string     `json:"permissions"`
			Budget      *budget.Spec `json:"budget"`
			ExpiresAt   *time.Time   `json:"expires_at"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return c.Delegate(ctx, NewDelegation{Name: in.Name, Permissions: in.Permissions, Budget: in.Budget, ExpiresAt: in.ExpiresAt})
	},
	"delegation": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		id, err := delegationID(req)
		if err != nil {
			return nil, err
		}
		return c.Delegation(ctx, id)
	},
	"revoke_delegation": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		id, err := delegationID(req)
		if err != nil {
			return nil, err
		}
		return nil, c.RevokeDelegation(ctx, id)
	},
	"act_as": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			ID  string          `json:"id"`
			Op  string          `json:"op"`
			Req json.RawMessage `json:"req"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		if !actAsOps[in.Op] {
			return nil, callErrorf("invalid", "act_as: %q is not a call a delegation makes (wallet, create_invoice, pay, invoices, payments)", in.Op)
		}
		d, err := c.ActAs(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		inner := []byte(in.Req)
		if len(inner) == 0 || string(inner) == "null" {
			inner = []byte("{}")
		}
		return ops[in.Op](ctx, d, inner)
	},
}

func delegationID(req []byte) (string, error) {
	var in struct {
		ID string `json:"id"`
	}
	if err := decodeReq(req, &in); err != nil {
		return "", err
	}
	if in.ID == "" {
		return "", callErrorf("invalid", "id is required")
	}
	return in.ID, nil
}
