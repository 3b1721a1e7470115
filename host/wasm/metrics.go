package wasm

import (
	"context"
	"errors"
	"time"

	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// With Options.Metrics, each call into a plugin is counted by its outcome
// and timed (waits for an instance or the CPU share included), and each
// fault is counted by its kind.

// observe counts a call of kind (metrics.CallEvent, CallHTTP) begun at
// start that ended with *err.
func (m *module) observe(ctx context.Context, kind int, start time.Time, err *error) {
	m.obs.Called(kind, outcomeOf(ctx, *err), time.Since(start))
}

// outcomeOf is the metrics' outcome of a call that ended with err.
func outcomeOf(ctx context.Context, err error) int {
	var handler *HandlerError
	switch {
	case err == nil:
		return metrics.OutcomeOK
	case host.IsFault(err):
		return metrics.OutcomeFault
	case errors.Is(err, ErrBusy):
		return metrics.OutcomeBusy
	case errors.Is(err, host.ErrUnavailable):
		return metrics.OutcomeUnavailable
	case errors.As(err, &handler):
		return metrics.OutcomeError
	case ctx.Err() != nil:
		return metrics.OutcomeCanceled
	default:
		return metrics.OutcomeError
	}
}

// countFault counts the fault of a call that ran in an instance, err
// what it came to: expired when it ran out of time, burst when that time
// was its CPU burst.
func (m *module) countFault(ctx context.Context, expired, burst bool, err error) {
	switch {
	case m.obs == nil || !host.IsFault(err):
	case expired && burst:
		m.obs.Faulted(metrics.FaultCPU)
	case expired, errors.Is(ctx.Err(), context.DeadlineExceeded):
		m.obs.Faulted(metrics.FaultDeadline)
	default:
		m.obs.Faulted(metrics.FaultTrap)
	}
}
