package main

import (
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
	"github.com/hearthwallet/hearth/plugins/nostr"
)

// builtinSections are the configuration sections of the built-ins that
// keep their settings out of core's config struct, each with its
// defaults; config.Load decodes the file and the environment into them.
func builtinSections() []config.Section {
	l := lnd.DefaultConfig()
	c := cln.DefaultConfig()
	a := lnurl.DefaultSettings()
	n := nostr.DefaultSettings()
	return []config.Section{{Key: lnd.SectionKey, Value: &l}, {Key: cln.SectionKey, Value: &c},
		{Key: lnurl.SectionKey, Value: &a}, {Key: nostr.SectionKey, Value: &n}}
}

// loadConfig loads the configuration with the built-ins' sections and
// checks the section of the chosen node backend.
func loadConfig(path string, environ []string) (config.Config, error) {
	cfg, err := config.Load(path, environ, builtinSections()...)
	if err != nil {
		return cfg, err
	}
	if err := lnurlConfig(cfg).Validate(); err != nil {
		return cfg, err
	}
	if err := nostrConfig(cfg).Validate(); err != nil {
		return cfg, err
	}
	if cfg.Node.Backend == "lnd" {
		if err := lndConfig(cfg).Validate(); err != nil {
			return cfg, err
		}
	}
	if cfg.Node.Backend == "cln" {
		if err := clnConfig(cfg).Validate(); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// clnConfig is the [node.cln] section that loadConfig decoded (its
// defaults for a configuration built otherwise).
func clnConfig(cfg config.Config) cln.Config {
	if c, ok := cfg.Builtin(cln.SectionKey).(*cln.Config); ok {
		return *c
	}
	return cln.DefaultConfig()
}

// lndConfig is the [node.lnd] section that loadConfig decoded (its
// defaults for a configuration built otherwise).
func lndConfig(cfg config.Config) lnd.Config {
	if c, ok := cfg.Builtin(lnd.SectionKey).(*lnd.Config); ok {
		return *c
	}
	return lnd.DefaultConfig()
}

// lnurlConfig is the LNURL plugin's configuration: the instance's domain
// and public URL and the [lnurl] section.
func lnurlConfig(cfg config.Config) lnurl.Config {
	s := lnurl.DefaultSettings()
	if c, ok := cfg.Builtin(lnurl.SectionKey).(*lnurl.Settings); ok {
		s = *c
	}
	return lnurl.ConfigOf(cfg.Domain, cfg.PublicURL, s, cfg.Plugins.AllowPrivateHosts)
}
