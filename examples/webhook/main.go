// Command webhook is a Hearth plugin that POSTs every settled invoice of
// its wallet, as JSON signed with HMAC-SHA256, to a configured URL, with
// retries and backoff.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hearthwallet/hearth/sdk"
)

// config is the plugin's configuration (see manifest.json).
type config struct {
	URL      string `json:"url"`
	Secret   string `json:"secret"`
	Attempts int    `json:"attempts"`
}

// delivery is the body POSTed to the URL.
type delivery struct {
	Event    string          `json:"event"`
	WalletID string          `json:"wallet_id"`
	ID       string          `json:"id"`
	At       time.Time       `json:"at"`
	Invoice  json.RawMessage `json:"invoice"`
}

// backoff is the wait before each retry. The manifest's deadline bounds
// the whole delivery: 5 s of CPU time, at most ten times that in wall time.
var backoff = []time.Duration{200 * time.Millisecond, 600 * time.Millisecond, 1500 * time.Millisecond}

// Sign returns the signature header value of body: "sha256=" and the hex
// HMAC-SHA256 of the body under secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func onSettled(e sdk.Event) error {
	var cfg config
	if err := sdk.Config(&cfg); err != nil {
		return err
	}
	body, err := json.Marshal(delivery{Event: e.Type, WalletID: e.WalletID(), ID: e.ID(), At: e.At, Invoice: e.Data})
	if err != nil {
		return err
	}
	req := sdk.OutboundRequest{Method: "POST", URL: cfg.URL, Body: body, Headers: map[string]string{
		"Content-Type":       "application/json",
		"X-Hearth-Event":     e.Type,
		"X-Hearth-Delivery":  e.ID(),
		"X-Hearth-Signature": Sign(cfg.Secret, body),
	}}
	attempts := max(1, min(cfg.Attempts, len(backoff)+1))
	var last string
	for i := range attempts {
		if i > 0 {
			time.Sleep(backoff[i-1])
		}
		resp, err := sdk.HTTP.Do(req)
		switch {
		case err != nil:
			if sdk.IsPermissionDenied(err) {
				return err // retrying cannot help
			}
			last = err.Error()
		case resp.Status >= 200 && resp.Status < 300:
			sdk.Log.Info(fmt.Sprintf("delivered %s %s (attempt %d)", e.Type, e.ID(), i+1))
			return nil
		default:
			last = fmt.Sprintf("HTTP %d", resp.Status)
		}
		sdk.Log.Warn(fmt.Sprintf("delivering %s: attempt %d: %s", e.ID(), i+1, last))
	}
	return fmt.Errorf("giving up on %s after %d attempts: %s", e.ID(), attempts, last)
}

func init() {
	sdk.OnEvent(sdk.InvoiceSettled, onSettled)
}

func main() {}
