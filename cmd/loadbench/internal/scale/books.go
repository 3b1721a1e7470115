package scale

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/operator"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// books is a database seeded for the scale phase, kept between runs: a PostgreSQL database of its own, or a SQLite file in the
// cache folder, with the set-up its servers need.
type books struct {
	database string // "sqlite" or "postgres"
	name     string // PostgreSQL's database; SQLite's folder is database-name
	bin      string // the hearth that serves and checks them
	dataDir  string // its servers' HEARTH_DATA_DIR; on SQLite it holds hearth.db
	dbURL    string // PostgreSQL's database
	state    state
	seeded   bool // seeded by this run
}

// state is what the set-up made, written once the books are whole:
// without it they are seeded again.
type state struct {
	N           int       `json:"n"`
	Clients     int       `json:"clients"`
	Password    string    `json:"password"`
	PayerKeys   []string  `json:"payer_keys"`
	PayeeKeys   []string  `json:"payee_keys"`
	SeededAt    time.Time `json:"seeded_at"`
	SeedSeconds float64   `json:"seed_seconds"`
}

// env is the environment of a hearth command on the books.
func (s *books) env() []string {
	env := append(os.Environ(), "HEARTH_DATA_DIR="+s.dataDir, "HEARTH_LOG_LEVEL=warn")
	if s.dbURL != "" {
		env = append(env, "HEARTH_DATABASE_URL="+s.dbURL)
	}
	return env
}

// statePath is where the books' state is kept.
func (s *books) statePath() string { return s.dataDir + ".json" }

// openBooks returns the books of n slots on database under o.Dir
// (PostgreSQL: the database named o.Name and n, made through pgURL's
// role), seeding them first when they are missing, of another size, or
// o.Reseed.
func openBooks(ctx context.Context, b hearthbin.Build, database, pgURL string, o Options, n int) (*books, error) {
	name := fmt.Sprintf("%s_%d", o.Name, n)
	s := &books{database: database, name: name, bin: b.Bin, dataDir: filepath.Join(o.Dir, database+"-"+name)}
	if database == "postgres" {
		if pgURL == "" { // before anything kept is removed to seed again
			return nil, errors.New("no PostgreSQL URL: pass -postgres or set " + storetest.PostgresEnv)
		}
		u, err := url.Parse(pgURL)
		if err != nil {
			return nil, fmt.Errorf("PostgreSQL URL: %w", err)
		}
		u.Path = "/" + name
		s.dbURL = u.String()
	}
	if raw, err := os.ReadFile(s.statePath()); err == nil && !o.Reseed {
		if err := json.Unmarshal(raw, &s.state); err == nil && s.state.N == n && s.state.Clients == o.Clients && s.exists(ctx) {
			return s, nil
		}
	}
	began := time.Now()
	if err := s.seed(ctx, b, pgURL, name, n, o.Clients); err != nil {
		return nil, fmt.Errorf("seeding %d payments on %s: %w", n, database, err)
	}
	s.state.SeededAt, s.state.SeedSeconds, s.seeded = time.Now().UTC(), time.Since(began).Seconds(), true
	return s, s.saveState()
}

// saveState writes the books' state: they are whole.
func (s *books) saveState() error {
	raw, err := json.MarshalIndent(s.state, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(s.statePath(), raw, 0o600)
}

// exists reports whether the books' database is there.
func (s *books) exists(ctx context.Context) bool {
	if s.dbURL == "" {
		_, err := os.Stat(filepath.Join(s.dataDir, "hearth.db"))
		return err == nil
	}
	conn, err := pgx.Connect(ctx, s.dbURL)
	if err != nil {
		return false
	}
	defer conn.Close(ctx)
	var n int
	return conn.QueryRow(ctx, "SELECT count(*) FROM wallets").Scan(&n) == nil
}

// seed makes the books anew: a server of b on an empty database makes the
// admin and the wallets with their API keys over HTTP, as an operator's
// set-up would; then, the server stopped, SQL writes n slots of invoices
// and payments (seedsql.go) and the balances they add up to.
func (s *books) seed(ctx context.Context, b hearthbin.Build, pgURL, name string, n, clients int) error {
	os.Remove(s.statePath())
	if err := os.RemoveAll(s.dataDir); err != nil {
		return err
	}
	if err := os.MkdirAll(s.dataDir, 0o700); err != nil {
		return err
	}
	if s.dbURL != "" {
		if _, _, err := hearthbin.FreshDatabase(ctx, pgURL, name); err != nil {
			return err
		}
	}
	fmt.Printf("  %s: seeding %d payments and %d invoices …\n", s.database, n, n)
	srv, err := hearthbin.Kept(ctx, b, s.dataDir, s.dbURL, append(s.env(), "HEARTH_LISTEN=127.0.0.1:0", "HEARTH_LOG_LEVEL=info"))
	if err != nil {
		return err
	}
	s.state = state{N: n, Clients: clients, Password: "loadbench-scale-" + fmt.Sprint(time.Now().UnixNano())}
	l := operator.Attach(srv, clients, nil, nil, &http.Client{Timeout: time.Minute}, machine.Meter{})
	err = l.Call(ctx, "POST", "/v1/system/mark-welcome-complete", "", nil, nil)
	if err == nil {
		err = l.Call(ctx, "POST", "/v1/auth/sign-up", "", map[string]string{"password": s.state.Password}, nil)
	}
	if err == nil {
		err = l.SignIn(ctx, s.state.Password)
	}
	if err == nil {
		s.state.PayerKeys, err = l.Wallets(ctx, "payer")
	}
	if err == nil {
		s.state.PayeeKeys, err = l.Wallets(ctx, "payee")
	}
	l.Close()
	srv.Stop()
	if err != nil {
		return fmt.Errorf("setting up: %w; its log: %s", err, srv.Log())
	}
	if s.dbURL != "" {
		return seedPostgresBooks(ctx, s.dbURL, n, clients)
	}
	return seedSQLiteBooks(ctx, filepath.Join(s.dataDir, "hearth.db"), n, clients)
}

// seedSpan is how far back the seeded books reach; they end seedEnd ago.
const (
	seedSpan = 730 * 24 * time.Hour
	seedEnd  = 72 * time.Hour
)

// seedClock returns the first slot's time and the step between slots, in
// microseconds: the first odd and the step even, so that no slot's time
// ends in a zero (seedsql.go).
func seedClock(n int) (t0, step int64) {
	step = max(seedSpan.Microseconds()/int64(n)/2*2, 2)
	t0 = time.Now().Add(-seedEnd).UnixMicro() - int64(n+1)*step
	return t0 | 1, step
}

// participants returns, of the books at db, the payers' and the payees'
// wallet ids and the payers' API key ids, payer i first.
func participants(ctx context.Context, db *sql.DB, clients int, ph func(int) string) (payers, payees, keys []string, err error) {
	for i := range clients {
		for _, q := range []struct {
			dst  *[]string
			text string
			user string
		}{
			{&payers, "SELECT id FROM wallets WHERE user_id = " + ph(1), fmt.Sprintf("payer-%03d", i)},
			{&payees, "SELECT id FROM wallets WHERE user_id = " + ph(1), fmt.Sprintf("payee-%03d", i)},
			{&keys, "SELECT id FROM api_keys WHERE user_id = " + ph(1) + " AND revoked_at IS NULL", fmt.Sprintf("payer-%03d", i)},
		} {
			var id string
			if err := db.QueryRowContext(ctx, q.text, q.user).Scan(&id); err != nil {
				return nil, nil, nil, fmt.Errorf("finding %s's %s: %w", q.user, strings.Fields(q.text)[3], err)
			}
			if len(id) != 36 {
				return nil, nil, nil, errors.New("an id that is no UUID: " + id)
			}
			*q.dst = append(*q.dst, id)
		}
	}
	return payers, payees, keys, nil
}
