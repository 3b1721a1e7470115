package app

import (
	"github.com/hearthwallet/hearth/core/config"
)

// LoadConfig loads the configuration (config.Load: defaults, the TOML file
// at path when not empty, the HEARTH_* variables of environ) with the
// sections of the built-ins listed, and has each built-in check its own.
func LoadConfig(path string, environ []string, builtins []Builtin) (config.Config, error) {
	var sections []config.Section
	for _, b := range builtins {
		if b.Sections != nil {
			sections = append(sections, b.Sections()...)
		}
	}
	cfg, err := config.Load(path, environ, sections...)
	if err != nil {
		return cfg, err
	}
	for _, b := range builtins {
		if b.Validate == nil {
			continue
		}
		if err := b.Validate(cfg); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// Section returns the section at key that LoadConfig decoded into a *T,
// or def when the configuration was built otherwise (config.Default in a
// test) or has no such section.
func Section[T any](cfg config.Config, key string, def T) T {
	if v, ok := cfg.Builtin(key).(*T); ok {
		return *v
	}
	return def
}

// NewSection is the config.Section at key of a new T holding def: a
// built-in's Sections.
func NewSection[T any](key string, def T) config.Section {
	v := new(T)
	*v = def
	return config.Section{Key: key, Value: v}
}
