package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/hearthwallet/hearth/app/builtins"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
)

// replicaConfigSetting names the settings row that records the
// configuration every replica of an instance must share, as the last
// server to start had it.
const replicaConfigSetting = "replica_config"

// sharedConfig is the configuration that every replica sharing a database
// must have alike: the node and its chain, who signs users in, and the
// names the instance is reached by.
func sharedConfig(cfg config.Config) map[string]string {
	m := map[string]string{
		"node.backend":  cfg.Node.Backend,
		"node.network":  cfg.Node.Network,
		"auth.provider": cfg.Auth.Provider,
		"domain":        cfg.Domain,
		"public_url":    cfg.PublicURL,
	}
	if cfg.Node.Backend == "lnd" {
		m["node.lnd.address"] = builtins.LNDConfig(cfg).Address
	}
	if cfg.Auth.Provider == "oidc" {
		m["auth.oidc.issuer"] = cfg.Auth.OIDC.Issuer
		m["auth.oidc.audience"] = cfg.Auth.OIDC.Audience
	}
	return m
}

// checkReplicaConfig compares this server's shared configuration with the
// one the last server to start on the database recorded, warns of every
// difference (replicas that disagree serve different invoices, addresses
// and sign-ins), and records its own. It warns rather than refuses: the
// difference may be a deliberate change, made to one replica after
// another.
func checkReplicaConfig(ctx context.Context, db *store.DB, cfg config.Config, log *slog.Logger) error {
	mine := sharedConfig(cfg)
	raw, err := json.Marshal(mine)
	if err != nil {
		return fmt.Errorf("recording the shared configuration: %w", err)
	}
	old, ok, err := db.GetSetting(ctx, replicaConfigSetting)
	if err != nil {
		return err
	}
	if ok && old == string(raw) {
		return nil
	}
	if ok {
		var theirs map[string]string
		if err := json.Unmarshal([]byte(old), &theirs); err == nil {
			if diff := configDiff(theirs, mine); len(diff) > 0 {
				log.Warn("this server's configuration differs from the one the last server to start on this database had; "+
					"every replica must share it (a deliberate change is fine once every replica has it)",
					"differences", strings.Join(diff, "; "))
			}
		}
	}
	return store.PutSetting(ctx, db.W, replicaConfigSetting, string(raw))
}

// configDiff lists the keys whose values differ, as key "old" → "new".
func configDiff(old, cur map[string]string) []string {
	var keys []string
	for k := range old {
		keys = append(keys, k)
	}
	for k := range cur {
		if _, ok := old[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diff []string
	for _, k := range keys {
		if old[k] != cur[k] {
			diff = append(diff, fmt.Sprintf("%s %q → %q", k, old[k], cur[k]))
		}
	}
	return diff
}
