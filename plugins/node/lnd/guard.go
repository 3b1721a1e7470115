package lnd

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc/invoicesrpc"
	"google.golang.org/grpc/status"

	"github.com/hearthwallet/hearth/core/ledger"
)

// lndGuardTaken is lnd's text for a modifier refused because another
// client holds it (invoices.ErrInterceptorClientAlreadyConnected).
const lndGuardTaken = "interceptor client already connected"

// probeFor bounds a probe of the guard (see confirm).
const probeFor = 2 * time.Second

// GuardInvoices holds lnd's invoice HTLC modifier (invoicesrpc
// HtlcModifier): lnd then sends Hearth each HTLC that would pay one of its
// invoices, before it accepts it, and fails back the HTLCs of an invoice
// accept refuses (cancel_set). lnd lets one client hold the modifier at a
// time and accepts every HTLC as usual while none does. It is
// ledger.InvoiceGuard.
func (n *Node) GuardInvoices(ctx context.Context, accept func(context.Context, string) bool, connected func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := n.invoices.HtlcModifier(ctx)
	if err != nil {
		return fmt.Errorf("lnd htlc modifier: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if n.confirm(ctx, accept) {
			connected()
		}
	})
	err = answer(ctx, stream, accept)
	ended := ctx.Err() != nil
	cancel()
	wg.Wait()
	if ended {
		return nil
	}
	return fmt.Errorf("lnd htlc modifier: %w", err)
}

// modifier is either end Hearth holds of lnd's HtlcModifier stream.
type modifier interface {
	Recv() (*invoicesrpc.HtlcModifyRequest, error)
	Send(*invoicesrpc.HtlcModifyResponse) error
}

// answer answers each HTLC lnd sends on stream, in order (lnd reads the
// next message as the answer to the HTLC it sent last), until the stream
// ends; it returns why.
func answer(ctx context.Context, stream modifier, accept func(context.Context, string) bool) error {
	for {
		req, err := stream.Recv()
		if err != nil {
			return err
		}
		var hash string
		if req.Invoice != nil {
			hash = hex.EncodeToString(req.Invoice.RHash)
		}
		refuse := hash != "" && !accept(ctx, hash)
		if err := stream.Send(&invoicesrpc.HtlcModifyResponse{CircuitKey: req.ExitHtlcCircuitKey, CancelSet: refuse}); err != nil {
			return err
		}
	}
}

// confirm reports, once it knows, whether lnd took the guard: lnd says
// nothing to the client it registers, but it refuses a second one. So a
// probe opens a second modifier: refused as taken, the guard is in place.
// A probe lnd takes instead (the guard's own registration failed, or has
// not run yet) answers HTLCs as the guard would until it gives up and the
// next probe tries. It returns false when ctx ends first.
func (n *Node) confirm(ctx context.Context, accept func(context.Context, string) bool) bool {
	for ctx.Err() == nil {
		// The guard's stream went first, but lnd registers each in a
		// goroutine of its own: a probe at once would often win the race.
		select {
		case <-ctx.Done():
			return false
		case <-time.After(probeFor / 20):
		}
		pctx, stop := context.WithTimeout(ctx, probeFor)
		probe, err := n.invoices.HtlcModifier(pctx)
		if err == nil {
			err = answer(pctx, probe, accept)
		}
		stop()
		if err != nil && strings.Contains(status.Convert(err).Message(), lndGuardTaken) {
			return ctx.Err() == nil
		}
	}
	return false
}

var _ ledger.InvoiceGuard = (*Node)(nil)
