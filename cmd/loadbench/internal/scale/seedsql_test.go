package scale

import (
	"context"
	"database/sql"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestSeedClock: the slots' times end a step before 3 days ago and reach
// two years back, the first odd and the step even, so that no slot's time in
// microseconds ends in a zero (which SQLite's text of it would drop).
func TestSeedClock(t *testing.T) {
	for _, n := range []int{1, 2_000, 1_000_000, 10_000_000} {
		t0, step := seedClock(n)
		if t0%2 != 1 || step%2 != 0 || step < 2 {
			t.Fatalf("%d slots: t0 %d, step %d", n, t0, step)
		}
		end := time.UnixMicro(t0 + int64(n+1)*step) // the slot after the last
		if d := time.Until(end) + seedEnd; d < -time.Minute || d > time.Minute {
			t.Errorf("%d slots: the slot after the last at %s, want %s ago", n, end, seedEnd)
		}
		if span := time.Duration(int64(n)*step) * time.Microsecond; n >= 2_000 && (span > seedSpan || span < seedSpan*99/100) {
			t.Errorf("%d slots span %s, want about %s", n, span, seedSpan)
		}
	}
}

// TestSeedExpressionsOnSQLite evaluates the SQL that writes the books'
// texts on SQLite against what Go makes of the same values: the time as
// Hearth's SQLite connections write it, version 7 UUIDs of the slot's
// time, 64 hexadecimal digits distinct by slot and salt, and the i-th of
// a list of ids.
func TestSeedExpressionsOnSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const us = int64(1_700_000_000_123_457)
	var when, id0, id1, h1, h1b, h2, picked string
	err = db.QueryRow(`SELECT `+sqliteTime("us")+`, `+uuidSQLite("us", 0)+`, `+uuidSQLite("us", 1)+`, `+
		hex64("k", 1)+`, `+hex64("k + 1", 1)+`, `+hex64("k", 2)+`, `+pick("?1", "2")+`
		FROM (SELECT ?2 AS us, 5 AS k)`,
		"aaaaaaaa-0000-7000-8000-000000000000,bbbbbbbb-0000-7000-8000-000000000000,cccccccc-0000-7000-8000-000000000000", us).
		Scan(&when, &id0, &id1, &h1, &h1b, &h2, &picked)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.000000-07:00"); when != want {
		t.Errorf("time %q, want %q", when, want)
	}
	checkUUID(t, id0, us)
	checkUUID(t, id1, us)
	if id0 == id1 {
		t.Errorf("an invoice's and a payment's ids are both %s", id0)
	}
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for _, h := range []string{h1, h1b, h2} {
		if !hex.MatchString(h) {
			t.Errorf("%q is not 64 hexadecimal digits", h)
		}
	}
	if h1 == h1b || h1 == h2 {
		t.Errorf("hashes alike for another slot or salt: %s %s %s", h1, h1b, h2)
	}
	if !strings.HasPrefix(picked, "cccccccc") {
		t.Errorf("the 3rd id picked %q", picked)
	}
}

// checkUUID checks that id is a version 7 UUID of the time us.
func checkUUID(t *testing.T, id string, us int64) {
	t.Helper()
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 || len(id) != 36 {
		t.Fatalf("%q: %v, version %d, variant %v", id, err, u.Version(), u.Variant())
	}
	if sec, nsec := u.Time().UnixTime(); sec*1000+nsec/1e6 != us/1000 {
		t.Errorf("%s holds %d ms, want %d", id, sec*1000+nsec/1e6, us/1000)
	}
}

// TestSeedUUIDsAgree: PostgreSQL's ids of a slot are SQLite's, so the
// books hold the same rows on both.
func TestSeedUUIDsAgree(t *testing.T) {
	pgURL := os.Getenv(storetest.PostgresEnv)
	if pgURL == "" {
		t.Skipf("%s is not set", storetest.PostgresEnv)
	}
	pg, err := sql.Open("pgx", pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	lite, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	ctx := context.Background()
	for _, k := range []int64{1, 4095, 4096, 16384, 9_999_999} {
		us := 1_650_000_000_000_001 + k*2_000_000
		var fromPG, fromSQLite string
		if err := pg.QueryRowContext(ctx, `SELECT `+uuidPostgres("us", 1)+` FROM (SELECT $1::bigint AS us, $2::bigint AS k) AS s`, us, k).Scan(&fromPG); err != nil {
			t.Fatal(err)
		}
		if err := lite.QueryRowContext(ctx, `SELECT `+uuidSQLite("us", 1)+` FROM (SELECT ?1 AS us, ?2 AS k)`, us, k).Scan(&fromSQLite); err != nil {
			t.Fatal(err)
		}
		if fromPG != fromSQLite {
			t.Errorf("slot %d: PostgreSQL's %s, SQLite's %s", k, fromPG, fromSQLite)
		}
		checkUUID(t, fromPG, us)
	}
}
