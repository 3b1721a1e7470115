// Command ticker is a test plugin with a timer, "tick": each firing adds
// one to the key "ticks" and keeps its due time under "due".
package main

import (
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
		return sdk.KV.Set("due", []byte(t.DueAt.Format(time.RFC3339Nano)+" "+strconv.Itoa(t.Missed)))
	})
}

func main() {}
