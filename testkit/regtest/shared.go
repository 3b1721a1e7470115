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
	startOnce(t, &s.once, &s.err, "regtest network", func(ctx context.Context) (err error) {
		s.net, err = Start(ctx, Options{})
		return err
	})
	return s.net
}

// Close stops the network and removes its folder, if it was started.
func (s *Shared) Close() {
	if s.net != nil {
		s.net.Remove()
	}
}

// SharedCLN is Shared for the Core Lightning network.
type SharedCLN struct {
	once sync.Once
	net  *CLNNetwork
	err  error
}

// Get returns the package's Core Lightning network, starting it the first
// time; it skips or fails the test as Shared.Get does.
func (s *SharedCLN) Get(t testing.TB) *CLNNetwork {
	t.Helper()
	startOnce(t, &s.once, &s.err, "regtest Core Lightning network", func(ctx context.Context) (err error) {
		s.net, err = StartCLN(ctx, Options{})
		return err
	})
	return s.net
}

// Close stops the network and removes its folder, if it was started.
func (s *SharedCLN) Close() {
	if s.net != nil {
		s.net.Remove()
	}
}

// startOnce runs start the first time, and then skips t when the binaries
// are missing outside CI, or fails it on any error.
func startOnce(t testing.TB, once *sync.Once, errp *error, what string, start func(context.Context) error) {
	t.Helper()
	if testing.Short() {
		t.Skip("regtest tests skipped in -short mode")
	}
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		began := time.Now()
		*errp = start(ctx)
		if *errp == nil {
			t.Logf("%s up in %s", what, time.Since(began).Round(time.Millisecond))
		}
	})
	switch err := *errp; {
	case errors.Is(err, ErrNoBinaries) && os.Getenv("CI") == "":
		t.Skipf("%s skipped: %v", what, err)
	case err != nil:
		t.Fatalf("%s: %v", what, err)
	}
}
