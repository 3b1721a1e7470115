package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// Section is a built-in's own part of the configuration, which core does
// not know: the built-in declares its struct (toml tags, doc comments that
// are the operator's documentation) with its defaults already set, and
// Load decodes into it the file's table at Key, then the HEARTH_<KEY>_*
// variables (Key "node.lnd": [node.lnd] address, HEARTH_NODE_LND_ADDRESS).
// The application (app.LoadConfig) gathers the sections of the built-ins
// cmd/hearth lists.
type Section struct {
	// Key is the dotted path of the section's table.
	Key string
	// Value is a pointer to the built-in's struct.
	Value any
}

// Builtin returns the Value of the section at key that Load decoded, or
// nil when none was given.
func (c *Config) Builtin(key string) any {
	for _, s := range c.sections {
		if s.Key == key {
			return s.Value
		}
	}
	return nil
}

// decodeSections decodes the file's tables at the sections' keys into
// their values, and returns the keys of the file that neither Config nor
// a section knows.
func decodeSections(path string, md toml.MetaData, sections []Section) ([]string, error) {
	var unknown []string
	for _, k := range md.Undecoded() {
		if !underSection(k.String(), sections) {
			unknown = append(unknown, k.String())
		}
	}
	if len(sections) == 0 {
		return unknown, nil
	}
	var top map[string]toml.Primitive
	smd, err := toml.DecodeFile(path, &top)
	if err != nil {
		return nil, err
	}
	for _, s := range sections {
		prim, ok := lookup(smd, top, strings.Split(s.Key, "."))
		if !ok {
			continue
		}
		if err := smd.PrimitiveDecode(prim, s.Value); err != nil {
			return nil, fmt.Errorf("[%s]: %w", s.Key, err)
		}
	}
	for _, k := range smd.Undecoded() {
		if underSection(k.String(), sections) {
			unknown = append(unknown, k.String())
		}
	}
	return unknown, nil
}

// lookup finds the table at path.
func lookup(md toml.MetaData, top map[string]toml.Primitive, path []string) (toml.Primitive, bool) {
	prim, ok := top[path[0]]
	for _, name := range path[1:] {
		if !ok {
			return prim, false
		}
		var next map[string]toml.Primitive
		if err := md.PrimitiveDecode(prim, &next); err != nil {
			return prim, false
		}
		prim, ok = next[name]
	}
	return prim, ok
}

// underSection reports whether the file's key is in one of the sections.
func underSection(key string, sections []Section) bool {
	for _, s := range sections {
		if key == s.Key || strings.HasPrefix(key, s.Key+".") {
			return true
		}
	}
	return false
}

// applySectionEnv sets the sections' fields from their HEARTH_* variables.
func applySectionEnv(sections []Section, environ []string) error {
	env := hearthEnv(environ)
	if len(env) == 0 {
		return nil
	}
	for _, s := range sections {
		v := reflect.ValueOf(s.Value)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return fmt.Errorf("config section %s: want a pointer to a struct, got %T", s.Key, s.Value)
		}
		prefix := "HEARTH_" + strings.ToUpper(strings.ReplaceAll(s.Key, ".", "_"))
		if err := walk(v.Elem(), prefix, env); err != nil {
			return err
		}
	}
	return nil
}
