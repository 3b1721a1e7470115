package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/app"
)

// ErrUnclean is wrapped by Run's error when the stop did not finish: the
// shutdown's timeout passed, or a second signal came, while requests or
// background work were still running. That work is left running: the
// caller should exit at once, without closing what it still uses.
var ErrUnclean = errors.New("the shutdown did not finish")

// Options say how Run serves.
type Options struct {
	// Version and BuildTime are the binary's.
	Version, BuildTime string
	// Abort, once closed, ends the stop at once (the second signal).
	Abort <-chan struct{}
}

// The HTTP server's timeouts: a request's header must come within
// readHeaderTimeout, its whole body within readTimeout, and its answer be
// written within writeTimeout; an idle keep-alive connection is closed
// after idleTimeout.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
)

// lingerQuiet is how long, once the server stops accepting, no request
// may begin on its open connections before it closes the idle ones (a
// client on a busy machine may take a few hundred milliseconds between
// an answer and its next request: at 250 ms a rolling restart's test
// once saw a request sent on a connection closed as idle);
// lingerMax is the longest it lingers (then idle connections close even
// while a request is in flight: an external payment may wait a minute on
// the node); lingerPoll is how often it looks.
const (
	lingerQuiet = time.Second
	lingerMax   = 5 * time.Second
	lingerPoll  = 10 * time.Millisecond
)

// Run serves a's API (started) on ln until ctx ends, then stops in this
// order:
//
//  1. It drains for shutdown.drain_delay: health and readiness answer 503
//     and every answer closes its connection ("Connection: close"), while
//     the server still accepts and serves, so that a load balancer's
//     health checks take it out of rotation before it refuses anything,
//     and clients on keep-alive connections reconnect (elsewhere).
//  2. It stops accepting (the listener closes: new connections are
//     refused, which a client may safely try elsewhere) and ends the live
//     streams (their clients reconnect elsewhere). It lingers while
//     clients may still send on their open keep-alive connections (each is
//     answered and closed after): until none is idle, or none is in flight
//     and none began for lingerQuiet, so that it does not close a
//     connection that a request is on its way over. Then it closes the
//     idle ones and lets the requests in flight finish; each answer closes
//     its connection. A request in flight is never cut, and none is
//     answered 5xx for the shutdown. An external payment's request waits
//     for the node as usual; should the timeout pass first, the process
//     exits and the payment stays Pending, for the reconciler of whichever
//     replica follows the node.
//  3. It stops the background work (app.App.Stop): each event consumer
//     saves its cursor and each lead gives up its lock, so that another
//     replica takes over at its next try; then it closes a.
//
// Steps 2 and 3 get shutdown.timeout together. Run returns nil after a
// clean stop. When the timeout passes or o.Abort is closed first, it logs
// the requests and the background work still running and returns an error
// wrapping ErrUnclean, leaving them running. Run closes a in every case
// but that one.
func Run(ctx context.Context, a *app.App, ln net.Listener, o Options) error {
	d := newDrain()
	deps := Deps(a, o.Version, o.BuildTime)
	deps.Draining = d.draining.Load
	srv := &http.Server{
		Handler:           d.wrap(api.New(deps)),
		ConnState:         d.track,
		ConnContext:       withConn,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		a.Close()
		return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}

	log, cfg := a.Log, a.Config.Shutdown
	began := time.Now()
	d.draining.Store(true)
	log.Info("shutting down: draining (health and readiness answer 503, answers close their connections)",
		"in_flight", d.count(), "drain_delay", cfg.DrainDelay.Duration, "timeout", cfg.Timeout.Duration)
	if delay := cfg.DrainDelay.Duration; delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-o.Abort:
			return unclean(a, d, "a second signal came during the drain delay", began, nil)
		}
	}

	stopCtx, cancel := context.WithTimeoutCause(context.Background(), cfg.Timeout.Duration,
		fmt.Errorf("shutdown.timeout (%s) passed", cfg.Timeout.Duration))
	defer cancel()
	stopCtx, abort := context.WithCancelCause(stopCtx)
	defer abort(nil)
	go func() {
		select {
		case <-o.Abort:
			abort(errors.New("a second signal came"))
		case <-stopCtx.Done():
		}
	}()

	// Stop accepting: a new connection is refused, which its client may
	// safely try elsewhere.
	closed := time.Now()
	if err := ln.Close(); err != nil {
		log.Warn("closing the listener", "err", err) // Shutdown closes it, then
	} else {
		<-served // Serve returns once it accepts no more
	}
	if a.Hub != nil {
		a.Hub.Close() // the live streams end: their clients reconnect elsewhere
	}
	log.Info("stopped accepting; finishing the requests in flight", "in_flight", d.count(), "connections", d.open())
	d.linger(stopCtx, lingerQuiet, lingerMax)
	if err := srv.Shutdown(stopCtx); err != nil {
		if stopCtx.Err() == nil {
			log.Warn("closing the listener", "err", err) // the connections are closed
		} else {
			return unclean(a, d, context.Cause(stopCtx).Error(), began, nil)
		}
	}
	log.Info("requests finished", "took", time.Since(closed).Round(time.Millisecond))

	stopping := time.Now()
	if err := a.Stop(stopCtx); err != nil {
		return unclean(a, d, context.Cause(stopCtx).Error(), began, a.Running())
	}
	a.Close()
	log.Info("background work stopped; cursors saved, leads given up", "took", time.Since(stopping).Round(time.Millisecond))
	log.Info("stopped", "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// unclean logs what is still running when the stop ends early, for why:
// the requests in flight, and the background work still stopping (bg; nil
// before it was asked to stop). It returns the error that says so.
func unclean(a *app.App, d *drain, why string, began time.Time, bg []string) error {
	reqs := d.running()
	a.Log.Error("shutdown incomplete: exiting with work still running", "why", why,
		"requests_in_flight", len(reqs), "background_still_stopping", orNone(bg),
		"after", time.Since(began).Round(time.Millisecond))
	for _, r := range reqs {
		a.Log.Error("request still in flight", "method", r.method, "path", r.path,
			"for", time.Since(r.since).Round(time.Millisecond))
	}
	return fmt.Errorf("%w: %s (%d request(s) in flight; background work still stopping: %s)",
		ErrUnclean, why, len(reqs), orNone(bg))
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
