package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/outbox"
)

// Events serves the live stream of events (core/outbox's Hub).
type Events interface {
	Serve(ctx context.Context, w http.ResponseWriter, st outbox.Stream) error
}

var errNoEvents = fault.New(fault.Unavailable, "events_unavailable", "The event stream is not running")

// myEvents streams the events of the caller's wallet.
func (s *Server) myEvents(w http.ResponseWriter, req bunrouter.Request) error {
	return s.streamEvents(w, req, callerWallet(req.Context()))
}

// allEvents streams the events of every wallet, or of wallet_id.
func (s *Server) allEvents(w http.ResponseWriter, req bunrouter.Request) error {
	walletID, err := scopeWallet(req, false)
	if err != nil {
		return err
	}
	return s.streamEvents(w, req, walletID)
}

// streamEvents answers with server-sent events of walletID ("" for all),
// resumed after the Last-Event-ID header (or the last_event_id parameter,
// for clients that cannot set headers) when there is one.
func (s *Server) streamEvents(w http.ResponseWriter, req bunrouter.Request, walletID string) error {
	st := outbox.Stream{WalletID: walletID}
	last := req.Header.Get("Last-Event-ID")
	if last == "" {
		last = req.URL.Query().Get("last_event_id")
	}
	if last != "" {
		id, err := strconv.ParseInt(last, 10, 64)
		if err != nil || id < 0 {
			return fault.Invalidf("Last-Event-ID must be the id of an event: a whole number of 0 or more")
		}
		st.After, st.Resume = id, true
	}
	if s.events == nil {
		return errNoEvents
	}
	// The answer has begun: an end is logged, never written.
	err := s.events.Serve(req.Context(), w, st)
	switch {
	case errors.Is(err, outbox.ErrDropped):
		s.log.InfoContext(req.Context(), "event stream client dropped: too slow", "wallet_id", walletID)
	case err != nil && req.Context().Err() == nil:
		s.log.DebugContext(req.Context(), "event stream ended", "err", err)
	}
	return nil
}
