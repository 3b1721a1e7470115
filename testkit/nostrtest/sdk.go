package nostrtest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hearthwallet/hearth/testkit/npmtest"
)

// AlbySDK is a directory holding @getalby/sdk's node_modules, as pinned by
// testdata/sdk's lock file: npm ci once per lock file, in the user's cache,
// under a lock, since packages that test in parallel share it. Without node
// and npm the test is skipped, unless CI is set.
func AlbySDK(t testing.TB) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	return npmtest.Install(t, filepath.Join(filepath.Dir(self), "testdata", "sdk"), "nwc-sdk",
		filepath.Join("node_modules", "@getalby", "sdk", "package.json"))
}
