package sdk

import (
	"encoding/json"
	"fmt"
	"time"
)

// TimerEvent is the type of the event a timer is delivered as.
const TimerEvent = "timer"

// Timer is one firing of a timer the manifest declares under "timers":
// {"name": "summary", "cron": "0 8 * * *"} or {"name": "poll", "every":
// "5m"}. The host fires each due time once, on one replica, while the
// plugin is enabled, and charges it to the plugin's CPU share like an
// event.
type Timer struct {
	Name string `json:"name"`
	// DueAt is when it was due. After a time in which nothing could fire
	// it (the server or the plugin stopped), it fires once, for the last
	// due time, and Missed counts those before it.
	DueAt  time.Time `json:"due_at"`
	Missed int       `json:"missed"`
}

var timerHandlers = map[string]func(Timer) error{}

// OnTimer registers fn for the timer the manifest names name. Call it
// from init.
func OnTimer(name string, fn func(Timer) error) { timerHandlers[name] = fn }

// dispatchTimer runs the handler of the timer e carries.
func dispatchTimer(e Event) error {
	fn := timerHandlers[string(e.id)]
	if fn == nil {
		return fmt.Errorf("no handler for timer %q", e.id)
	}
	var t Timer
	if err := json.Unmarshal(e.Data, &t); err != nil {
		return fmt.Errorf("decoding timer %q: %w", e.id, err)
	}
	return fn(t)
}
