package nwc

import (
	"context"
	"encoding/json"

	"github.com/hearthwallet/hearth/core/ledger"
)

// maxListed bounds list_transactions' limit, as Alby Hub does.
const maxListed = 50

// envelopeRoom is what a list_transactions response holds beside its
// transactions: result_type, total_count and the JSON around them.
const envelopeRoom = 1_024

// fitPage is the longest head of txs whose JSON fits one response event
// (maxPlaintext, less envelopeRoom): a page of large records (long
// descriptions, metadata) is cut short rather than left unsealable; the
// app reads on with offset, and total_count tells it how far to go.
func fitPage(txs []*transaction) []*transaction {
	size := len(`{"transactions":[]}`)
	for i, t := range txs {
		b, err := json.Marshal(t)
		if err != nil {
			return txs[:i]
		}
		size += len(b) + 1 // and its comma
		if size > maxPlaintext-envelopeRoom {
			return txs[:i]
		}
	}
	return txs
}

// totalCount is how many transactions list_transactions' filter f holds
// over every page, of typ ("" both, incoming, outgoing).
func totalCount(ctx context.Context, c *call, f ledger.Filter, typ string) (int, error) {
	total := 0
	if typ == "" || typ == "incoming" {
		n, err := c.c.CountInvoices(ctx, f)
		if err != nil {
			return 0, err
		}
		total += n
	}
	if typ == "" || typ == "outgoing" {
		n, err := c.c.CountPayments(ctx, f)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
