package outbox

import "context"

// Advance reads the head now, as Run does on a wake-up.
func Advance(ctx context.Context, o *Outbox) error {
	_, err := o.advance(ctx)
	return err
}
