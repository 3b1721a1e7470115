package sdk

import "time"

// A delegation is a credential the caller of one of the plugin's routes
// gives it, so that the plugin can act for that user later, without them
// (a wallet connection that pays when an app asks, a subscription that
// pays each month): an API key the host keeps for the plugin, scoped within
// the caller's permissions and the plugin's grant, optionally budgeted and
// expiring, revocable. The plugin needs the capabilities caller:act and
// credential:delegate, and the caller write:api_key. The ledger enforces a
// delegation's budget as any key's.

// BudgetSpec is a spending budget: max_msat per renewal period (daily,
// weekly, monthly, yearly, or never).
type BudgetSpec struct {
	MaxMsat int64  `json:"max_msat"`
	Renewal string `json:"renewal,omitempty"`
}

// Budget is a budget with its use in the current period.
type Budget struct {
	MaxMsat  int64      `json:"max_msat"`
	Renewal  string     `json:"renewal"`
	UsedMsat int64      `json:"used_msat"`
	RenewsAt *time.Time `json:"renews_at,omitempty"`
}

// NewDelegation asks for a delegation.
type NewDelegation struct {
	Name string `json:"name"`
	// Permissions are scope names (read:wallet, write:transaction, …).
	Permissions []string    `json:"permissions"`
	Budget      *BudgetSpec `json:"budget,omitempty"`
	ExpiresAt   *time.Time  `json:"expires_at,omitempty"`
}

// Delegation is a credential the plugin holds for a user.
type Delegation struct {
	ID          string     `json:"id"`
	UserID      string     `json:"user_id"`
	WalletID    string     `json:"wallet_id"`
	Name        string     `json:"name"`
	Permissions []string   `json:"permissions"`
	Budget      *Budget    `json:"budget,omitempty"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
}

// Delegate makes a delegation from the caller of the route being served.
func Delegate(req NewDelegation) (*Delegation, error) {
	d := new(Delegation)
	return d, call(opDelegate, req, d)
}

// GetDelegation reads one of the plugin's delegations, with its budget's
// use; an error with code not_found once it was revoked or has expired.
func GetDelegation(id string) (*Delegation, error) {
	d := new(Delegation)
	return d, call(opDelegation, map[string]string{"id": id}, d)
}

// RevokeDelegation ends one of the plugin's delegations at once.
func RevokeDelegation(id string) error {
	return call(opRevokeDeleg, map[string]string{"id": id}, nil)
}

// Delegated acts with one of the plugin's delegations: on its user's
// wallet, within its permissions, its payments counted against its budget.
type Delegated struct{ id string }

// As returns the calls acting with delegation id.
func As(id string) Delegated { return Delegated{id: id} }

func (d Delegated) call(op string, req, resp any) error {
	return call(opActAs, map[string]any{"id": d.id, "op": op, "req": req}, resp)
}

// Wallet is the delegation's wallet with its balance (read:wallet).
func (d Delegated) Wallet() (*WalletInfo, error) {
	w := new(WalletInfo)
	return w, d.call(opWallet, nil, w)
}

// CreateInvoice issues an invoice into the delegation's wallet.
func (d Delegated) CreateInvoice(req NewInvoice) (*Invoice, error) {
	inv := new(Invoice)
	return inv, d.call(opCreateInv, req, inv)
}

// Pay pays from the delegation's wallet, within its budget (a refusal has
// code budget_exceeded).
func (d Delegated) Pay(req PayRequest) (*Payment, error) {
	p := new(Payment)
	return p, d.call(opPay, req, p)
}

// Payments lists the delegation's wallet's payments.
func (d Delegated) Payments(f ListFilter) ([]Payment, error) {
	var out []Payment
	return out, d.call(opPayments, f, &out)
}

// Invoices lists the delegation's wallet's invoices.
func (d Delegated) Invoices(f ListFilter) ([]Invoice, error) {
	var out []Invoice
	return out, d.call(opInvoices, f, &out)
}
