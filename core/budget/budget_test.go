package budget_test

import (
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/budget"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Each renewal's period key and next start at the edges of its periods:
// the last and first instants of a year, ISO week 53 and week 1 of the
// next ISO year (which begin in another calendar year), a leap day, month
// ends, and a time given in another zone (periods are UTC's).
func TestPeriodAndRenewsAt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r      budget.Renewal
		at     string
		period string
		renews string // "" for none
	}{
		{budget.Daily, "2026-11-27T00:00:00Z", "2026-11-27", "2026-11-28T00:00:00Z"},
		{budget.Daily, "2026-11-27T23:59:59.999999999Z", "2026-11-27", "2026-11-28T00:00:00Z"},
		{budget.Daily, "2026-12-31T23:59:59Z", "2026-12-31", "2027-01-01T00:00:00Z"},
		{budget.Daily, "2028-02-28T12:00:00Z", "2028-02-28", "2028-02-29T00:00:00Z"},
		{budget.Daily, "2028-02-29T12:00:00Z", "2028-02-29", "2028-03-01T00:00:00Z"},
		{budget.Daily, "2026-11-27T23:30:00-05:00", "2026-11-28", "2026-11-29T00:00:00Z"},
		{budget.Weekly, "2026-11-27T10:00:00Z", "2026-W48", "2026-11-30T00:00:00Z"}, // a Friday
		{budget.Weekly, "2026-11-30T00:00:00Z", "2026-W49", "2026-12-07T00:00:00Z"}, // Monday: a new week
		{budget.Weekly, "2026-11-29T23:59:59Z", "2026-W48", "2026-11-30T00:00:00Z"}, // Sunday: still the old
		{budget.Weekly, "2026-12-31T12:00:00Z", "2026-W53", "2027-01-04T00:00:00Z"}, // 2026 has 53 ISO weeks
		{budget.Weekly, "2027-01-03T23:59:59Z", "2026-W53", "2027-01-04T00:00:00Z"}, // week 53 ends in 2027
		{budget.Weekly, "2027-01-04T00:00:00Z", "2027-W01", "2027-01-11T00:00:00Z"}, // week 1
		{budget.Weekly, "2024-12-30T00:00:00Z", "2025-W01", "2025-01-06T00:00:00Z"}, // week 1 begins in December
		{budget.Weekly, "2028-02-29T08:00:00Z", "2028-W09", "2028-03-06T00:00:00Z"}, // leap day, a Tuesday
		{budget.Monthly, "2026-11-30T23:59:59Z", "2026-11", "2026-12-01T00:00:00Z"},
		{budget.Monthly, "2026-12-01T00:00:00Z", "2026-12", "2027-01-01T00:00:00Z"},
		{budget.Monthly, "2028-02-29T23:59:59Z", "2028-02", "2028-03-01T00:00:00Z"},
		{budget.Monthly, "2026-01-31T12:00:00Z", "2026-01", "2026-02-01T00:00:00Z"},
		{budget.Yearly, "2026-12-31T23:59:59.999Z", "2026", "2027-01-01T00:00:00Z"},
		{budget.Yearly, "2027-01-01T00:00:00Z", "2027", "2028-01-01T00:00:00Z"},
		{budget.Yearly, "2028-02-29T00:00:00Z", "2028", "2029-01-01T00:00:00Z"},
		{budget.Never, "2026-11-27T10:00:00Z", "", ""},
		{budget.Never, "2099-01-01T00:00:00Z", "", ""},
	} {
		when := at(c.at)
		if got := budget.Period(c.r, when); got != c.period {
			t.Errorf("Period(%s, %s) = %q, want %q", c.r, c.at, got, c.period)
		}
		got := budget.RenewsAt(c.r, when)
		switch {
		case c.renews == "" && got != nil:
			t.Errorf("RenewsAt(%s, %s) = %v, want none", c.r, c.at, got)
		case c.renews != "" && (got == nil || !got.Equal(at(c.renews)) || got.Location() != time.UTC):
			t.Errorf("RenewsAt(%s, %s) = %v, want %s", c.r, c.at, got, c.renews)
		case got != nil && budget.Period(c.r, *got) == c.period:
			t.Errorf("RenewsAt(%s, %s) = %v is still in period %s", c.r, c.at, got, c.period)
		case got != nil && budget.Period(c.r, got.Add(-time.Nanosecond)) != c.period:
			t.Errorf("the instant before RenewsAt(%s, %s) is not in period %s", c.r, c.at, c.period)
		}
	}
}

// Every instant of three years, an hour apart, lies in the period that
// began at or before it and ends at its RenewsAt: no hour falls between
// two periods or in two.
func TestPeriodsTileTime(t *testing.T) {
	t.Parallel()
	start := at("2026-01-01T00:30:00Z")
	for _, r := range []budget.Renewal{budget.Daily, budget.Weekly, budget.Monthly, budget.Yearly} {
		for when := start; when.Before(start.AddDate(3, 0, 0)); when = when.Add(time.Hour) {
			next := budget.RenewsAt(r, when)
			if !next.After(when) || budget.Period(r, *next) == budget.Period(r, when) {
				t.Fatalf("%s at %s: renews at %s", r, when, next)
			}
			if later := when.Add(time.Hour); later.Before(*next) && budget.Period(r, later) != budget.Period(r, when) {
				t.Fatalf("%s: %s and %s are both before %s but in two periods", r, when, later, next)
			}
		}
	}
}

func TestParseRenewal(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]budget.Renewal{"": budget.Never, "never": budget.Never, "daily": budget.Daily,
		"weekly": budget.Weekly, "monthly": budget.Monthly, "yearly": budget.Yearly} {
		if got, err := budget.ParseRenewal(in); err != nil || got != want {
			t.Errorf("ParseRenewal(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"Daily", "hourly", " daily", "forever"} {
		if _, err := budget.ParseRenewal(in); err == nil {
			t.Errorf("ParseRenewal(%q) accepted", in)
		}
	}
}

func TestSpecValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec budget.Spec
		ok   bool
	}{
		{budget.Spec{MaxMsat: 1, Renewal: budget.Daily}, true},
		{budget.Spec{MaxMsat: budget.MaxMsat}, true},
		{budget.Spec{MaxMsat: 2_100_000_000_000_000_000, Renewal: budget.Never}, true},
		{budget.Spec{MaxMsat: 0, Renewal: budget.Daily}, false},
		{budget.Spec{MaxMsat: -5, Renewal: budget.Daily}, false},
		{budget.Spec{MaxMsat: budget.MaxMsat + 1, Renewal: budget.Daily}, false},
		{budget.Spec{MaxMsat: 10, Renewal: "hourly"}, false},
	} {
		if err := c.spec.Validate(); (err == nil) != c.ok {
			t.Errorf("Validate(%+v) = %v", c.spec, err)
		}
	}
}

// What the current period used shows; a past period's use does not.
func TestCurrent(t *testing.T) {
	t.Parallel()
	now := at("2026-11-27T10:00:00Z")
	st := budget.Current(50_000, budget.Daily, 7_000, "2026-11-27", now)
	if st.UsedMsat != 7_000 || st.MaxMsat != 50_000 || st.RenewsAt == nil || !st.RenewsAt.Equal(at("2026-11-28T00:00:00Z")) {
		t.Fatalf("this period: %+v", st)
	}
	if st := budget.Current(50_000, budget.Daily, 7_000, "2026-11-26", now); st.UsedMsat != 0 {
		t.Fatalf("a past period's use shows: %+v", st)
	}
	if st := budget.Current(50_000, budget.Never, 7_000, "", now); st.UsedMsat != 7_000 || st.RenewsAt != nil {
		t.Fatalf("never: %+v", st)
	}
}
