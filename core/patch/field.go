package patch

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Field is one field of a PATCH body: absent (Set false: unchanged), null
// (Set, Value nil: removed) or a value (Set, Value). Its value is decoded
// strictly: an unknown member of an object is an error.
type Field[T any] struct {
	Set   bool
	Value *T
}

// UnmarshalJSON records that the field was sent, and its value unless it
// is null.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	f.Set = true
	if string(bytes.TrimSpace(b)) == "null" {
		f.Value = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	v := new(T)
	if err := dec.Decode(v); err != nil {
		return err
	}
	f.Value = v
	return nil
}

// MarshalJSON writes the value, or null.
func (f Field[T]) MarshalJSON() ([]byte, error) {
	if f.Value == nil {
		return []byte("null"), nil
	}
	return json.Marshal(f.Value)
}

// Null reports whether the field was sent as null: remove the value.
func (f Field[T]) Null() bool { return f.Set && f.Value == nil }

// Of is the field set to v (in Go code and tests).
func Of[T any](v T) Field[T] { return Field[T]{Set: true, Value: &v} }

// Elem is the type of the field's value: what a schema or a checker of the
// body reads in its place.
func (Field[T]) Elem() reflect.Type { return reflect.TypeFor[T]() }

// Elem is the type a JSON value decoded into t holds: T for a Field[T], t
// itself otherwise.
func Elem(t reflect.Type) reflect.Type {
	if t == nil {
		return nil
	}
	if f, ok := reflect.Zero(t).Interface().(interface{ Elem() reflect.Type }); ok && t.Kind() == reflect.Struct {
		return f.Elem()
	}
	return t
}
