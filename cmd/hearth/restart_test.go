package main

import (
	"context"
	"regexp"
	"testing"
)

var holdingMigrationRE = regexp.MustCompile(`holding the migration lock until stopped`)

// A server killed -9 in the middle of its migration step (it holds the
// migration lock, every migration is applied but not committed) starts
// again cleanly, as do the one-shot commands; so does one killed while it
// waited for the lock.
func TestKilledDuringMigrationStartsAgain(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		first := startProcess(t, append([]string{holdMigrationEnv + "=1"}, environ...), "serve")
		first.waitFor(holdingMigrationRE)
		// A second start finds the lock held, and says it waits.
		waiting := startProcess(t, environ, "serve")
		waiting.waitFor(regexp.MustCompile(`another process is migrating the database; waiting`))
		first.kill()
		waiting.kill()

		for _, args := range [][]string{{"migrate"}, {"ledger", "check"}} {
			if err := run(context.Background(), args, newSyncWriter(), environ); err != nil {
				t.Fatalf("%v after the kill: %v", args, err)
			}
		}
		again := startProcess(t, append([]string{holdMigrationEnv + "=1"}, environ...), "serve")
		again.waitFor(holdingMigrationRE)
		again.kill()
		_, c := serveProcess(t, environ)
		c.expect(c.call("GET", "/v1/system/health", "", ""), 200)
		c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200)
	})
}
