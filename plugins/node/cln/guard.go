package cln

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"github.com/hearthwallet/hearth/core/ledger"
)

// GuardInvoices holds the invoice guard (guardwire.go): lightningd then
// asks accept before it takes a payment to one of Hearth's invoices, and
// rejects the payments accept refuses. It connects to the guard plugin's
// socket; with Config.Guard "auto" and no plugin listening, it first has
// lightningd start Config.GuardPlugin as its plugin (`plugin start`). It
// calls connected once the plugin greeted it, and returns when ctx ends
// (nil) or the connection does (why). It is ledger.InvoiceGuard.
func (n *Node) GuardInvoices(ctx context.Context, accept func(context.Context, string) bool, connected func()) error {
	if n.guard == GuardOff {
		<-ctx.Done()
		return nil
	}
	conn, err := n.dialGuard(ctx)
	if err != nil {
		return fmt.Errorf("cln invoice guard: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	dec := json.NewDecoder(bufio.NewReader(conn))
	var hello guardHello
	if err := dec.Decode(&hello); err != nil {
		return n.guardEnded(ctx, err)
	}
	if hello.Guard != guardProtocol || hello.Error != "" {
		return fmt.Errorf("cln invoice guard: the plugin refused: %q %s", hello.Guard, hello.Error)
	}
	connected()
	var wmu sync.Mutex
	enc := json.NewEncoder(conn)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var q guardQuestion
		if err := dec.Decode(&q); err != nil {
			return n.guardEnded(ctx, err)
		}
		wg.Go(func() {
			a := guardAnswer{ID: q.ID, Accept: accept(ctx, q.PaymentHash)}
			wmu.Lock()
			defer wmu.Unlock()
			_ = enc.Encode(a) // a broken connection ends the reader too
		})
	}
}

// guardEnded is GuardInvoices' answer once the connection broke.
func (n *Node) guardEnded(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("cln invoice guard: %w", err)
}

// dialGuard connects to the guard plugin, starting it first if it does not
// listen and Config.Guard is "auto": lightningd runs Config.GuardPlugin,
// or this executable, with no arguments, and hearth's main takes that for
// its cln-guard command (StartedAsPlugin).
func (n *Node) dialGuard(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	path := guardSocket(n.path)
	conn, err := d.DialContext(ctx, "unix", path)
	if err == nil || n.guard != GuardAuto {
		return conn, err
	}
	if err := n.startPlugin(ctx); err != nil {
		if conn, derr := d.DialContext(ctx, "unix", path); derr == nil {
			return conn, nil // a hold invoice's creation started it meanwhile
		}
		return nil, err
	}
	conn, err = d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("the plugin started but does not listen on %s", path), err)
	}
	return conn, nil
}

// startPlugin has lightningd start Config.GuardPlugin, or this
// executable, as its plugin.
func (n *Node) startPlugin(ctx context.Context) error {
	exe := n.plugin
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("finding this executable to start it as lightningd's plugin: %w", err)
		}
	}
	if err := n.call(ctx, pluginStartRequest{Subcommand: "start", Plugin: exe}, nil); err != nil {
		return fmt.Errorf("starting %s as lightningd's plugin: %w", exe, err)
	}
	return nil
}

var _ ledger.InvoiceGuard = (*Node)(nil)
