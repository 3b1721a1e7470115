package sdk

// NewHoldInvoice asks for a hold invoice: one for PaymentHash, the SHA-256
// of a preimage the plugin keeps. Paid, it turns Accepted (the event
// invoice.accepted) and the payer's money is held until SettleHoldInvoice
// (with the preimage) or CancelHoldInvoice, or until the host cancels it,
// not settled in time (Invoice.SettleBy).
type NewHoldInvoice struct {
	NewInvoice
	// PaymentHash is 32 bytes, hex.
	PaymentHash string `json:"payment_hash"`
	// MinFinalCLTVExpiryDelta is how many blocks the payment's last HTLC
	// gives the plugin to settle; 0 for the host's default (144).
	MinFinalCLTVExpiryDelta int64 `json:"min_final_cltv_expiry_delta,omitempty"`
}

// CreateHoldInvoice makes a hold invoice into the plugin's wallet
// (write:transaction and the capability invoice:hold).
func CreateHoldInvoice(req NewHoldInvoice) (*Invoice, error) {
	inv := new(Invoice)
	return inv, call(opCreateHold, req, inv)
}

// SettleHoldInvoice settles the Accepted hold invoice id with its preimage
// (hex): the payer's money is the wallet's. Settling one already Settled
// answers it again.
func SettleHoldInvoice(id, preimage string) (*Invoice, error) {
	inv := new(Invoice)
	return inv, call(opSettleHold, map[string]string{"id": id, "preimage": preimage}, inv)
}

// CancelHoldInvoice cancels hold invoice id, Pending or Accepted: the
// payer's money goes back. Cancelling one already Cancelled answers it
// again.
func CancelHoldInvoice(id string) (*Invoice, error) {
	inv := new(Invoice)
	return inv, call(opCancelHold, map[string]string{"id": id}, inv)
}
