package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A server whose shared configuration differs from the one the last server
// recorded in the database warns, naming each difference; one that agrees
// says nothing.
func TestReplicaConfigDifferencesAreWarned(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg, err := config.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		out := newSyncWriter()
		log := slog.New(slog.NewTextHandler(out, nil))
		for range 2 {
			if err := checkReplicaConfig(ctx, db, cfg, log); err != nil {
				t.Fatal(err)
			}
		}
		if out.String() != "" {
			t.Fatalf("servers that agree logged %q", out)
		}
		other := cfg
		other.Domain = "pay.example.com"
		other.Node.Network = "signet"
		if err := checkReplicaConfig(ctx, db, other, log); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"configuration differs", `domain \"localhost:3000\" → \"pay.example.com\"`, `node.network \"regtest\" → \"signet\"`} {
			if !strings.Contains(out.String(), want) {
				t.Fatalf("the warning %q lacks %q", out, want)
			}
		}
	})
}
