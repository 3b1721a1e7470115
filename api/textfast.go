package api

import "reflect"

// flatTextOK is checkJSON's fast path, for the bodies most requests send:
// one object of plain members (strings without escapes, numbers, true,
// false, null) decoded into a struct. It reports true when raw, which has
// already decoded into t, passes every check of walkJSON: each key names a
// field of t exactly and each string is text. It reports false whenever it
// cannot tell (an escape, a nested value, a key that does not match, a
// byte that may be a control character), and checkJSON then walks the
// document with encoding/json's tokens, which cost a payment some 5 % of
// its CPU (issue 38).
func flatTextOK(raw []byte, t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return false
	}
	fields := jsonFields(t)
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) {
		key, next, ok := plainString(raw, i)
		if !ok {
			return false
		}
		if _, known := fields[key]; !known {
			return false
		}
		i = skipSpace(raw, next)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case '"':
			if _, i, ok = plainString(raw, i); !ok {
				return false
			}
		case '{', '[':
			return false
		default: // a number, true, false or null: Decode has checked it
			for i < len(raw) && raw[i] != ',' && raw[i] != '}' && !isSpace(raw[i]) {
				i++
			}
		}
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
	return false
}

// plainString reads the string that starts at raw[i] (a quote) when it has
// no escape and no byte that may be a control character: below 0x20, DEL,
// or the lead byte 0xC2 of U+0080–U+009F (raw is valid UTF-8, which
// checkJSON has made sure of). It returns the string and the index after
// its closing quote.
func plainString(raw []byte, i int) (s string, next int, ok bool) {
	if i >= len(raw) || raw[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; {
		case c == '"':
			return string(raw[i+1 : j]), j + 1, true
		case c == '\\' || c < 0x20 || c == 0x7f || c == 0xc2:
			return "", j, false
		}
	}
	return "", len(raw), false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && isSpace(raw[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
