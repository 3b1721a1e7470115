package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Stop ends the background work and waits for it as long as its context
// lets it: past that, it says which work has not returned, and a later
// Stop waits for the rest.
func TestStopNamesTheWorkStillRunning(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	stuck := app.Builtin{Name: "stuck", Background: func(ctx context.Context, _ *app.App) {
		<-ctx.Done()
		<-release // as work that does not heed its context
	}}
	a, err := app.New(context.Background(), config.Default(), storetest.SQLite(t),
		app.Options{Builtins: []app.Builtin{app.EmbeddedNode(), stuck}, NoWasm: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if running := a.Running(); !slices.Contains(running, "background of stuck") || !slices.Contains(running, "node streams") {
		t.Fatalf("running after Start: %v", running)
	}

	over, cancel := context.WithCancel(context.Background())
	cancel()
	err = a.Stop(over)
	if err == nil || !strings.Contains(err.Error(), "background of stuck") {
		t.Fatalf("Stop past its context = %v, want an error naming the stuck work", err)
	}
	if running := a.Running(); !slices.Contains(running, "background of stuck") {
		t.Fatalf("running after Stop past its context: %v", running)
	}

	close(release)
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if running := a.Running(); len(running) != 0 {
		t.Fatalf("running after Stop: %v", running)
	}
}
