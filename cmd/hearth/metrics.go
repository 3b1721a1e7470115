package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// serveMetrics serves a's metrics at GET /metrics on metrics.listen, a
// listener of their own (the API's never serves them), until stop;
// without metrics.listen it serves nothing (the metrics are counted all
// the same, for GET /v1/system/stats).
func serveMetrics(a *app.App, log *slog.Logger) (stop func(), err error) {
	if a.Metrics == nil || a.Config.Metrics.Listen == "" {
		return func() {}, nil
	}
	addr := a.Config.Metrics.Listen
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on metrics.listen %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           a.Metrics.Mux(),
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("serving the metrics", "address", addr, "err", err)
		}
	}()
	log.Info("metrics listening", "address", "http://"+displayAddr(ln.Addr())+metrics.Path)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx) //nolint:errcheck // a scrape cut short at exit is no loss
	}, nil
}
