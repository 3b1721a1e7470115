package regtest

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"
)

// Shared is one network for all the tests of a package: the first test
// that asks starts it, TestMain closes it.
//
//	var network regtest.Shared
//
//	func TestMain(m *testing.M) { code := m.Run(); network.Close(); os.Exit(code) }
//
//	func TestX(t *testing.T) { net := network.Get(t) … }
type Shared struct {
	once sync.Once
	net  *Network
	err  error
}

// Get returns the package's network, starting it the first time. Without
// the binaries it skips the test, saying how to build them — except under
// CI (CI set), where that is a failure.
func (s *Shared) Get(t testing.TB) *Network {
	t.Helper()
	if testing.Short() {
		t.Skip("regtest tests skipped in -short mode")
	}
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		began := time.Now()
		s.net, s.err = Start(ctx, Options{})
		if s.err == nil {
			t.Logf("regtest network up in %s", time.Since(began).Round(time.Millisecond))
		}
	})
	switch {
	case errors.Is(s.err, ErrNoBinaries) && os.Getenv("CI") == "":
		t.Skipf("regtest tests skipped: %v", s.err)
	case s.err != nil:
		t.Fatalf("regtest network: %v", s.err)
	}
	return s.net
}

// Close stops the network and removes its folder, if it was started.
func (s *Shared) Close() {
	if s.net != nil {
		s.net.Remove()
	}
}
