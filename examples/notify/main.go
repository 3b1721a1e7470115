// Command notify is a Hearth plugin that pushes a notification of each
// payment its wallet receives or sends to an ntfy-style topic (a POST of
// the text to a URL, with a Title header), through the host's durable
// sender: a notification survives a crash and a receiver that is down for
// hours, and an event handled twice sends once. Each morning at 08:00 UTC
// a timer sends the day before's summary, kept in the plugin's store.
package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/sdk"
)

// config is the plugin's configuration (see manifest.json).
type config struct {
	URL    string `json:"url"`
	Token  string `json:"token"`
	MinSat int64  `json:"min_sat"`
}

// day is what the store keeps of one day (UTC), under "day/2006-01-02".
type day struct {
	ReceivedMsat int64 `json:"received_msat"`
	Received     int   `json:"received"`
	SentMsat     int64 `json:"sent_msat"`
	Sent         int   `json:"sent"`
}

func init() {
	sdk.OnEvent(sdk.InvoiceSettled, onReceived)
	sdk.OnEvent(sdk.PaymentSettled, onSent)
	sdk.OnTimer("summary", onSummary)
}

func onReceived(e sdk.Event) error {
	inv, err := e.Invoice()
	if err != nil {
		return err
	}
	msat := inv.AmountReceivedMsat
	if msat == nil {
		msat = inv.AmountMsat
	}
	var amount int64
	if msat != nil {
		amount = *msat
	}
	return notify(e, amount, "Received", func(d *day) { d.ReceivedMsat += amount; d.Received++ })
}

func onSent(e sdk.Event) error {
	p, err := e.Payment()
	if err != nil {
		return err
	}
	return notify(e, p.AmountMsat, "Sent", func(d *day) { d.SentMsat += p.AmountMsat; d.Sent++ })
}

// notify counts the payment in its day, once however often the event
// comes, and hands its notification to the sender, keyed by the event, so
// that it is sent once too. (The day is written before the event is
// marked seen: a crash between the two counts it twice in the summary.)
func notify(e sdk.Event, msat int64, verb string, count func(*day)) error {
	var cfg config
	if err := sdk.Config(&cfg); err != nil {
		return err
	}
	date := e.At.UTC().Format(time.DateOnly)
	seen := "seen/" + date + "/" + e.Type + "/" + e.ID()
	if _, done, err := sdk.KV.Get(seen); err != nil || done {
		return err
	}
	key := "day/" + date
	d, err := readDay(key)
	if err != nil {
		return err
	}
	count(&d)
	if err := writeDay(key, d); err != nil {
		return err
	}
	if err := sdk.KV.Set(seen, []byte{1}); err != nil {
		return err
	}
	if msat < cfg.MinSat*1000 {
		return nil
	}
	if _, err := sdk.Send(request(cfg, e.Type+"/"+e.ID(), verb+" "+sats(msat), description(e))); err != nil {
		return err
	}
	return sdk.Metrics.Inc("notifications")
}

// onSummary sends the summary of the day before t's due time, once, and
// forgets that day and its events.
func onSummary(t sdk.Timer) error {
	var cfg config
	if err := sdk.Config(&cfg); err != nil {
		return err
	}
	date := t.DueAt.UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	d, err := readDay("day/" + date)
	if err != nil {
		return err
	}
	text := fmt.Sprintf("Received %s in %d payments, sent %s in %d.", sats(d.ReceivedMsat), d.Received, sats(d.SentMsat), d.Sent)
	if _, err := sdk.Send(request(cfg, "summary/"+date, "Summary of "+date, text)); err != nil {
		return err
	}
	if err := sdk.Metrics.Inc("summaries"); err != nil {
		return err
	}
	return forget(date)
}

// forget deletes the days up to date, and the events seen on them.
func forget(date string) error {
	var old []string
	for _, prefix := range []string{"day/", "seen/"} {
		err := sdk.KV.Keys(prefix, func(k string) bool {
			if day, _, _ := strings.Cut(k[len(prefix):], "/"); day <= date {
				old = append(old, k)
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	for _, k := range old {
		if err := sdk.KV.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// request is the POST of text to the topic, titled, keyed so that the
// same notification is sent once, and ordered with the others.
func request(cfg config, key, title, text string) sdk.SendRequest {
	h := map[string]string{"Title": title, "Content-Type": "text/plain; charset=utf-8"}
	if cfg.Token != "" {
		h["Authorization"] = "Bearer " + cfg.Token
	}
	return sdk.SendRequest{URL: cfg.URL, Headers: h, Body: []byte(text), Key: key, Dest: "topic"}
}

// description is the invoice's or payment's description, if it has one.
func description(e sdk.Event) string {
	var r struct {
		Description *string `json:"description"`
	}
	if json.Unmarshal(e.Data, &r) == nil && r.Description != nil && *r.Description != "" {
		return *r.Description
	}
	return "no description"
}

func readDay(key string) (day, error) {
	var d day
	v, ok, err := sdk.KV.Get(key)
	if err != nil || !ok {
		return d, err
	}
	return d, json.Unmarshal(v, &d)
}

func writeDay(key string, d day) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return sdk.KV.Set(key, b)
}

// sats writes msat as sats, with the millisats when there are some.
func sats(msat int64) string {
	if msat%1000 == 0 {
		return fmt.Sprintf("%d sat", msat/1000)
	}
	return fmt.Sprintf("%d.%03d sat", msat/1000, msat%1000)
}

func main() {}
