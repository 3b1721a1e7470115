package ledger

import "github.com/hearthwallet/hearth/core/fault"

// The ledger's errors.
var (
	ErrInsufficientFunds = fault.New(fault.Unprocessable, "insufficient_funds", "Insufficient funds")
	ErrInvalidAmount     = fault.New(fault.Unprocessable, "invalid_amount", "Invalid amount")
	ErrInvalidInvoice    = fault.New(fault.Unprocessable, "invalid_invoice", "Invalid invoice request")
	ErrUnsupportedInput  = fault.New(fault.Unprocessable, "unsupported_input", "Unsupported payment input")
	ErrSelfPayment       = fault.New(fault.Unprocessable, "self_payment", "Cannot pay your own invoice")
	ErrInvoicePaid       = fault.New(fault.Unprocessable, "invoice_paid", "Invoice already paid")
	ErrInvoiceExpired    = fault.New(fault.Unprocessable, "invoice_expired", "Invoice expired")
	ErrAmountMismatch    = fault.New(fault.Unprocessable, "amount_mismatch", "amount_msat differs from the invoice amount")
	ErrNoExternalNode    = fault.New(fault.Unprocessable, "no_external_node", "no Lightning node configured for external payments")
	ErrIdempotencyReuse  = fault.New(fault.Unprocessable, "idempotency_key_reused", "Idempotency-Key was used for a different request")
	ErrInvoiceRace       = fault.New(fault.Conflict, "invoice_race", "The invoice was paid by another payment at the same moment")
	ErrPaymentInFlight   = fault.New(fault.Conflict, "payment_in_flight", "A payment of this invoice is already pending or settled")
	ErrInvoiceNotFound   = fault.New(fault.NotFound, "not_found", "Invoice not found")
	ErrPaymentNotFound   = fault.New(fault.NotFound, "not_found", "Payment not found")
	ErrNotOurInvoice     = fault.New(fault.Unprocessable, "not_our_invoice", "Not an invoice of this instance")
	ErrBudgetExceeded    = fault.New(fault.Unprocessable, "budget_exceeded", "Payment would exceed the budget of this credential")

	// Hold invoices (hold.go).
	ErrNoHoldInvoices   = fault.New(fault.Unprocessable, "hold_unsupported", "The Lightning node cannot hold invoices")
	ErrHashInUse        = fault.New(fault.Conflict, "payment_hash_in_use", "An invoice with this payment hash exists")
	ErrWrongPreimage    = fault.New(fault.Unprocessable, "invalid_preimage", "The preimage does not hash to the invoice's payment hash")
	ErrNotHold          = fault.New(fault.Unprocessable, "not_hold_invoice", "Not a hold invoice")
	ErrHoldState        = fault.New(fault.Conflict, "invoice_state", "The invoice cannot change to that status now")
	ErrInvoiceCancelled = fault.New(fault.Unprocessable, "invoice_cancelled", "Invoice cancelled")

	// Receiving keysend (keysendreceive.go).
	ErrWalletNotFound = fault.New(fault.NotFound, "not_found", "Wallet not found")
)
