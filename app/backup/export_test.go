package backup

import "context"

// WithBetween is o with a function that runs once the copy's snapshot has
// ended and before the settled rows are read.
func WithBetween(o Options, between func(ctx context.Context) error) Options {
	o.between = between
	return o
}
