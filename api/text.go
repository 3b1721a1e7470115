package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/patch"
)

// Text that a client sends is checked once, at the edge, for what no field
// may hold: invalid UTF-8 (encoding/json would silently turn it into
// U+FFFD), NUL (PostgreSQL cannot store it in text; SQLite can), and the
// other control characters, which no field of the API means. Tab, newline
// and carriage return stay allowed: a description may span lines.

// badText reports whether s is not valid UTF-8 or holds a control
// character other than tab, newline and carriage return.
func badText(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || (r >= 0x80 && r <= 0x9f) {
			return true
		}
		i += n
	}
	return false
}

// badPathText is badText for paths and query strings, where not even tab
// or a newline belongs.
func badPathText(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 }) || badText(s)
}

// errBadText is the answer to a field that badText refuses; the value is
// never echoed.
func errBadText(field string) error {
	if field == "" {
		return fault.Invalidf("Invalid text: NUL, control characters and invalid UTF-8 are not allowed")
	}
	return fault.Invalidf("Invalid text in field %s: NUL, control characters and invalid UTF-8 are not allowed", field)
}

// checkJSON walks the JSON document raw, which has already decoded into a
// value of type t, along that type: every key of an object decoded into a
// struct must name a field exactly (encoding/json matches names without
// regard to case, api.md wants unknown fields refused), and every string,
// key or value, must be text.
func checkJSON(raw []byte, t reflect.Type) error {
	if !utf8.Valid(raw) {
		return errBadText("")
	}
	if flatTextOK(raw, t) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return walkJSON(dec, t, "")
}

// walkJSON checks the next value of dec, decoded into t (nil: any value),
// found under the key field.
func walkJSON(dec *json.Decoder, t reflect.Type, field string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	t = patch.Elem(t)
	tok, err := dec.Token()
	if err != nil {
		return fault.Invalidf("Malformed JSON")
	}
	switch v := tok.(type) {
	case string:
		if badText(v) {
			return errBadText(field)
		}
	case json.Delim:
		if v == '[' {
			var elem reflect.Type
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				elem = t.Elem()
			}
			for dec.More() {
				if err := walkJSON(dec, elem, field); err != nil {
					return err
				}
			}
		} else if err := walkObject(dec, t); err != nil {
			return err
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return fault.Invalidf("Malformed JSON")
		}
	}
	return nil
}

// walkObject checks the members of an object decoded into t.
func walkObject(dec *json.Decoder, t reflect.Type) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = jsonFields(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fault.Invalidf("Malformed JSON")
		}
		key, _ := tok.(string)
		if badText(key) {
			return errBadText("")
		}
		vt := elem
		if fields != nil {
			ft, ok := fields[key]
			if !ok {
				return fault.Invalidf("Unknown field %q (field names are matched exactly)", key)
			}
			vt = ft
		}
		if err := walkJSON(dec, vt, key); err != nil {
			return err
		}
	}
	return nil
}

// fieldCache holds jsonFields' answer per struct type.
var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields maps the JSON names of t's fields, embedded structs' included,
// to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	addFields(t, m)
	fieldCache.Store(t, m)
	return m
}

func addFields(t reflect.Type, m map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(ft, m)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
}
