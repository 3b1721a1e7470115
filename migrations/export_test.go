package migrations

// InvoiceTagsUp and InvoiceTagsDown are 20261127000004's two ways.
var (
	InvoiceTagsUp   = both(invoiceTagsUp, invoiceTagsUpPG)
	InvoiceTagsDown = both(invoiceTagsDown, invoiceTagsDownPG)
)
