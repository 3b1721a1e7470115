// Command ticker is a test plugin with a timer, "tick": each firing adds
// one to the key "ticks" and to the counter "ticks", sets the gauge
// "missed" to the due times it passed over, and keeps its due time under
// the key "due".
package main

import (
	"errors"
	"strconv"
	"time"

	"github.com/hearthwallet/hearth/sdk"
)

func init() {
	sdk.OnTimer("tick", func(t sdk.Timer) error {
		v, _, err := sdk.KV.Get("ticks")
		if err != nil {
			return err
		}
		n, _ := strconv.Atoi(string(v))
		if err := sdk.KV.Set("ticks", []byte(strconv.Itoa(n+1))); err != nil {
			return err
		}
		if err := sdk.Metrics.Inc("ticks"); err != nil {
			return err
		}
		if err := sdk.Metrics.Set("missed", float64(t.Missed)); err != nil {
			return err
		}
		if err := sdk.Metrics.Set("ticks", 1); err == nil {
			return errors.New("a counter was set")
		}
		return sdk.KV.Set("due", []byte(t.DueAt.Format(time.RFC3339Nano)+" "+strconv.Itoa(t.Missed)))
	})
}

func main() {}
