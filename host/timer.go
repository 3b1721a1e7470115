package host

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// TimerEvent is the type of the event a plugin's timer is delivered as:
// its id is the timer's name, its time the time it was due, its record
// a Firing.
const TimerEvent = "timer"

// Limits on timers.
const (
	// MinTimerEvery is the shortest interval of an "every" timer.
	MinTimerEvery = 10 * time.Second
	maxTimers     = 16
)

// Timer is a handler the host runs on a schedule: every Every (a Go
// duration, "30s", "15m", "24h"), or at the times of Cron (five fields,
// minute to day of week, in UTC unless it starts with CRON_TZ=<zone>; or
// @hourly, @daily, @weekly, @monthly). The plugin's event handler for
// TimerEvent gets it, on one replica, once per due time.
type Timer struct {
	Name  string `json:"name"`
	Every string `json:"every,omitempty"`
	Cron  string `json:"cron,omitempty"`
}

// Firing is the record of a timer's event.
type Firing struct {
	Name string `json:"name"`
	// DueAt is when it was due; a firing after the server was down for
	// several due times is one firing, of the last of them.
	DueAt time.Time `json:"due_at"`
	// Missed counts the due times passed over while nothing could run it
	// (the server or the plugin was stopped).
	Missed int `json:"missed"`
}

// schedule is when a timer is due: the first due time after t.
type schedule interface {
	Next(t time.Time) time.Time
}

// every is a schedule of fixed intervals, counted from Go's zero time (as
// time.Truncate counts) so that every replica computes the same due times.
type every time.Duration

func (e every) Next(t time.Time) time.Time {
	d := time.Duration(e)
	return t.Truncate(d).Add(d)
}

var timerNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// cronParser reads the five standard fields and the descriptors; a
// schedule with seconds would fire more often than MinTimerEvery allows.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// schedule returns when t is due.
func (t Timer) schedule() (schedule, error) {
	switch {
	case (t.Every == "") == (t.Cron == ""):
		return nil, fmt.Errorf("set either every or cron")
	case t.Every != "":
		d, err := time.ParseDuration(t.Every)
		if err != nil {
			return nil, fmt.Errorf("every %q: a duration such as 30s, 15m or 24h", t.Every)
		}
		if d < MinTimerEvery || d > 366*24*time.Hour {
			return nil, fmt.Errorf("every %q: between %s and 366 days", t.Every, MinTimerEvery)
		}
		return every(d), nil
	default:
		if strings.HasPrefix(strings.TrimSpace(t.Cron), "@every") {
			return nil, fmt.Errorf("cron %q: write an interval as every", t.Cron)
		}
		s, err := cronParser.Parse(t.Cron)
		if err != nil {
			return nil, fmt.Errorf("cron %q: %v", t.Cron, err)
		}
		return s, nil
	}
}

// spec is the schedule as written, kept with the timer's state: a
// changed schedule starts again from the next due time.
func (t Timer) spec() string {
	if t.Every != "" {
		return "every " + t.Every
	}
	return "cron " + t.Cron
}

// validateTimers checks the manifest's timers.
func validateTimers(ts []Timer, bad func(string, ...any)) {
	if len(ts) > maxTimers {
		bad("more than %d timers", maxTimers)
	}
	seen := map[string]bool{}
	for i, t := range ts {
		if !timerNameRE.MatchString(t.Name) {
			bad("timers[%d]: name %q: 1-32 of a-z, 0-9, '_', '-', starting with a letter", i, t.Name)
		}
		if seen[t.Name] {
			bad("timers[%d]: name %q listed twice", i, t.Name)
		}
		seen[t.Name] = true
		if _, err := t.schedule(); err != nil {
			bad("timers[%d]: %v", i, err)
		}
	}
}
