package budget

import (
	"errors"
	"fmt"
	"time"
)

// Renewal says when a budget starts again from nothing: at the start of each
// calendar period in UTC, or never.
type Renewal string

// The renewals.
const (
	Daily   Renewal = "daily"
	Weekly  Renewal = "weekly" // ISO weeks, starting on Monday
	Monthly Renewal = "monthly"
	Yearly  Renewal = "yearly"
	Never   Renewal = "never"
)

// MaxMsat is the largest budget: every bitcoin there will ever be, in msat.
// A payment's charge is checked against it before it is added up, so that
// used + amount never leaves a BIGINT.
const MaxMsat int64 = 21_000_000 * 100_000_000 * 1000

// ErrRenewal is the error of an unknown renewal.
var ErrRenewal = errors.New("renewal must be one of daily, weekly, monthly, yearly, never")

// ParseRenewal returns the renewal named s; "" is Never, the default of a
// budget that names none.
func ParseRenewal(s string) (Renewal, error) {
	switch r := Renewal(s); r {
	case "":
		return Never, nil
	case Daily, Weekly, Monthly, Yearly, Never:
		return r, nil
	}
	return "", ErrRenewal
}

// Period is the key of the period of r that holds t, in UTC: "2026-11-27"
// (daily), "2026-W48" (weekly, the ISO year and week), "2026-11" (monthly),
// "2026" (yearly), and "" for Never (or an unknown renewal), whose one
// period lasts for ever. Two times fall in the same period exactly when
// their keys are equal.
func Period(r Renewal, t time.Time) string {
	t = t.UTC()
	switch r {
	case Daily:
		return t.Format("2006-01-02")
	case Weekly:
		year, week := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", year, week)
	case Monthly:
		return t.Format("2006-01")
	case Yearly:
		return t.Format("2006")
	}
	return ""
}

// RenewsAt is the start of the period of r after the one that holds t, in
// UTC: when a budget used at t starts again. Nil for Never.
func RenewsAt(r Renewal, t time.Time) *time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	var next time.Time
	switch r {
	case Daily:
		next = day.AddDate(0, 0, 1)
	case Weekly:
		// Days since Monday: Go's Sunday is 0, ISO's is the seventh day.
		since := (int(day.Weekday()) + 6) % 7
		next = day.AddDate(0, 0, 7-since)
	case Monthly:
		next = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	case Yearly:
		next = time.Date(t.Year()+1, time.January, 1, 0, 0, 0, 0, time.UTC)
	default:
		return nil
	}
	return &next
}

// Spec is a budget as asked for: at most MaxMsat msat paid in each period
// of Renewal.
type Spec struct {
	// MaxMsat is what may be paid in a period, amounts and fees together:
	// from 1 to MaxMsat.
	MaxMsat int64 `json:"max_msat"`
	// Renewal is when the budget starts again; "" is Never.
	Renewal Renewal `json:"renewal"`
}

// Validate reports what is wrong with s, in words for the caller.
func (s Spec) Validate() error {
	if s.MaxMsat < 1 || s.MaxMsat > MaxMsat {
		return fmt.Errorf("budget max_msat must be between 1 and %d", MaxMsat)
	}
	if _, err := ParseRenewal(string(s.Renewal)); err != nil {
		return fmt.Errorf("budget %w", err)
	}
	return nil
}

// Status is a budget as shown: its spec, what the current period has used,
// and when it renews (absent for Never).
type Status struct {
	MaxMsat  int64      `json:"max_msat"`
	Renewal  Renewal    `json:"renewal"`
	UsedMsat int64      `json:"used_msat"`
	RenewsAt *time.Time `json:"renews_at,omitempty"`
}

// Current is the status at now of a budget of limit msat renewing r, which has
// used used msat in the period whose key is period: nothing yet when that
// period is over.
func Current(limit int64, r Renewal, used int64, period string, now time.Time) *Status {
	st := &Status{MaxMsat: limit, Renewal: r, RenewsAt: RenewsAt(r, now)}
	if period == Period(r, now) {
		st.UsedMsat = used
	}
	return st
}
