package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// What a payment keeps of a payment-input resolver's answer
// (core/ledger.Resolved): the Lightning Address paid, and the LNURL-pay
// success action (a JSON object, as text on both databases).
const paymentLnurlUp = `
ALTER TABLE payments ADD COLUMN ln_address TEXT;
ALTER TABLE payments ADD COLUMN success_action TEXT;
`

const paymentLnurlDown = `
ALTER TABLE payments DROP COLUMN success_action;
ALTER TABLE payments DROP COLUMN ln_address;
`

func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, paymentLnurlUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, paymentLnurlDown)
		return err
	})
}
