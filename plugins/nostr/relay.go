package nostr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/coder/websocket"
	gonostr "github.com/nbd-wtf/go-nostr"
)

// maxRelayMessage bounds what the plugin reads of one relay message.
const maxRelayMessage = 256 << 10

// publish sends the signed event receipt (JSON) to relay and waits for
// its OK (NIP-01), within Timeout. The websocket is dialled by the host's
// guarded client (go-nostr's relay dials with a client of its own, which
// the outbound guard cannot check): no private address unless allowed,
// after DNS, on every connection. A relay that already has the event
// answers OK too ("duplicate:"), so a receipt sent again after a restart
// counts once.
func (p *Plugin) publish(ctx context.Context, relay, receipt string) error {
	var ev gonostr.Event
	if err := ev.UnmarshalJSON([]byte(receipt)); err != nil {
		return fmt.Errorf("decoding the receipt: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	c, _, err := websocket.Dial(ctx, relay, &websocket.DialOptions{HTTPClient: p.out.Client(),
		HTTPHeader: http.Header{"User-Agent": {"hearth"}}})
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer c.CloseNow() //nolint:errcheck
	c.SetReadLimit(maxRelayMessage)
	if err := c.Write(ctx, websocket.MessageText, []byte(`["EVENT",`+receipt+`]`)); err != nil {
		return fmt.Errorf("sending: %w", err)
	}
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return errors.New("no OK from the relay in time")
			}
			return fmt.Errorf("reading: %w", err)
		}
		ok, isOK := gonostr.ParseMessage(string(msg)).(*gonostr.OKEnvelope)
		if !isOK || ok.EventID != ev.ID {
			continue // NOTICE, AUTH, others
		}
		if ok.OK || strings.HasPrefix(ok.Reason, "duplicate:") {
			c.Close(websocket.StatusNormalClosure, "") //nolint:errcheck
			return nil
		}
		return fmt.Errorf("refused: %s", ok.Reason)
	}
}
