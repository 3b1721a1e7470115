package lnurl

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
)

// LUD-18 on the paying side: a payRequest that names payerData says what
// the payee takes of the payer. Hearth says one thing of a payer, the
// paying wallet's own Lightning Address as its identifier, when it has an
// active one and the payee asks for it; it sends nothing the payee did
// not ask for, and refuses a payRequest that makes mandatory what it
// cannot say.

// payerDataFor is the payerdata of a payment from walletID to a payee
// that asks for asked (nil: nothing): "" for none.
func (p *Plugin) payerDataFor(ctx context.Context, walletID string, asked map[string]PayerField) (string, error) {
	if len(asked) == 0 {
		return "", nil
	}
	var must []string
	for k, f := range asked {
		if f.Mandatory && k != "identifier" {
			must = append(must, k)
		}
	}
	if len(must) > 0 {
		slices.Sort(must)
		return "", refused("The LNURL server asks the payer's %v, which Hearth does not send (LUD-18)", must)
	}
	f, ok := asked["identifier"]
	if !ok {
		return "", nil
	}
	a, err := p.one(ctx, "wallet_id = ?", walletID)
	if errors.Is(err, ErrNotFound) || (err == nil && !a.Active) {
		if f.Mandatory {
			return "", refused("The LNURL server asks the payer's Lightning Address (LUD-18): register one to pay it")
		}
		return "", nil
	}
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]string{"identifier": p.addressOf(a.Username)})
	return string(b), err
}
