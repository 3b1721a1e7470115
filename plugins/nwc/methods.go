package nwc

import (
	"context"
	"encoding/json"

	"github.com/hearthwallet/hearth/host"
)

// method is a NIP-47 method the wallet serves: the permission it needs of
// the connection's delegation, and its work (nil: known but not served on
// this node, NOT_IMPLEMENTED).
type method struct {
	scopes []string
	run    func(ctx context.Context, c *call, params json.RawMessage) []reply
}

// call is one request of a connection, acting with its delegation.
type call struct {
	p       *Plugin
	c       *host.Caller
	conn    *connRow
	eventID string
}

// notifications is the pseudo-method a connection holds to be sent
// notifications (listed with the methods, as NIP-47's info event does).
const notifications = "notifications"

// methodOrder lists the methods served, in the info event's order.
var methodOrder = []string{"pay_invoice", "multi_pay_invoice", "pay_keysend", "multi_pay_keysend", "make_invoice", "lookup_invoice",
	"list_transactions", "get_balance", "get_info", "get_budget", "make_hold_invoice", "settle_hold_invoice", "cancel_hold_invoice"}

// methods are the methods served, by name. pay_keysend and
// multi_pay_keysend reach the node's keysend (lnd's); on a node without
// it they answer the ledger's refusal.
var methods = map[string]method{
	"pay_invoice":       {scopes: paying, run: payInvoice},
	"multi_pay_invoice": {scopes: paying, run: multiPayInvoice},
	"pay_keysend":       {scopes: paying, run: payKeysend},
	"multi_pay_keysend": {scopes: paying, run: multiPayKeysend},
	"make_invoice":      {scopes: []string{"write:transaction"}, run: makeInvoice},
	"lookup_invoice":    {scopes: []string{"read:transaction"}, run: lookupInvoice},
	"list_transactions": {scopes: []string{"read:transaction"}, run: listTransactions},
	"get_balance":       {scopes: []string{"read:wallet"}, run: getBalance},
	"get_info":          {scopes: []string{"read:wallet"}, run: getInfo},
	"get_budget":        {scopes: []string{"read:wallet"}, run: getBudget},
	// Hold invoices (hold.go): settling and cancelling find the invoice
	// by its payment hash first.
	"make_hold_invoice":   {scopes: []string{"write:transaction"}, run: makeHoldInvoice},
	"settle_hold_invoice": {scopes: paying, run: settleHoldInvoice},
	"cancel_hold_invoice": {scopes: paying, run: cancelHoldInvoice},
}

// paying is what paying implies: making the payment, and reading it to
// answer its preimage once it is final.
var paying = []string{"write:transaction", "read:transaction"}

// notificationTypes are the notifications sent.
var notificationTypes = []string{"payment_received", "payment_sent", "hold_invoice_accepted"}

// scopesOf are the permissions a connection's method (or notifications)
// needs.
func scopesOf(m string) ([]string, bool) {
	if m == notifications {
		return []string{"read:transaction"}, true
	}
	mm, ok := methods[m]
	return mm.scopes, ok
}

// one is a single reply.
func one(result any, err *nwcError) []reply { return []reply{{result: result, err: err}} }

// decodeParams reads params into v; a malformed one is OTHER.
func decodeParams(params json.RawMessage, v any) *nwcError {
	if err := json.Unmarshal(params, v); err != nil {
		return errorf(codeOther, "invalid params: %v", err)
	}
	return nil
}

func getBalance(ctx context.Context, c *call, _ json.RawMessage) []reply {
	w, err := c.c.Wallet(ctx)
	if err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	return one(map[string]int64{"balance": w.Balance.AvailableMsat}, nil)
}

func getBudget(ctx context.Context, c *call, _ json.RawMessage) []reply {
	d, err := c.p.host.Delegation(ctx, c.conn.ID)
	if err != nil {
		return one(nil, c.p.failed(ctx, "call", err))
	}
	if d.Budget == nil {
		return one(struct{}{}, nil)
	}
	out := map[string]any{"used_budget": d.Budget.UsedMsat, "total_budget": d.Budget.MaxMsat,
		"renewal_period": string(d.Budget.Renewal)}
	if d.Budget.RenewsAt != nil {
		out["renews_at"] = d.Budget.RenewsAt.Unix()
	}
	return one(out, nil)
}

// served are the connection's methods without the notifications.
func (c *connRow) served() []string {
	out := []string{}
	for _, m := range c.methods() {
		if m != notifications {
			out = append(out, m)
		}
	}
	return out
}
