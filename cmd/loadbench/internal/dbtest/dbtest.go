// Package dbtest runs loadbench's tests on each database it measures.
package dbtest

import (
	"os"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Each runs test on SQLite and on PostgreSQL (skipped without its URL,
// storetest.PostgresEnv), each as a parallel subtest named for its
// database, with the PostgreSQL URL ("" on SQLite).
func Each(t *testing.T, test func(t *testing.T, db, pgURL string)) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			pgURL := os.Getenv(storetest.PostgresEnv)
			if db == "postgres" && pgURL == "" {
				t.Skipf("%s is not set", storetest.PostgresEnv)
			}
			test(t, db, pgURL)
		})
	}
}

// Index numbers the databases (sqlite 0, postgres 1), for tests that
// name their own databases apart.
func Index(db string) int { return map[string]int{"sqlite": 0, "postgres": 1}[db] }
