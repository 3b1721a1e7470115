package ledger

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tag marks an invoice as made by a plugin, with a value of the plugin's
// own (the Lightning Address it was made for, an order number, a page):
// the plugin finds its invoices again by it, on the record and among the
// events (outbox.Filter.Tagged). The host sets Plugin to the plugin that
// made the invoice, whatever the plugin says; an invoice made through the
// API has no tag.
type Tag struct {
	Plugin string `json:"plugin"`
	Value  string `json:"value"`
	// Field, when set, is the field of the invoice record that shows
	// Value too (the host sets it for a built-in that shows its tags so:
	// host.Builtin.TagField); it is kept with the invoice.
	Field string `json:"-"`
}

// MaxTagBytes bounds a tag's value.
const MaxTagBytes = 256

// validTag reports whether t can be kept: a plugin and a value of printable
// text, at most MaxTagBytes.
func validTag(t *Tag) bool {
	if t.Plugin == "" || t.Value == "" || len(t.Value) > MaxTagBytes || !utf8.ValidString(t.Value) {
		return false
	}
	for _, r := range t.Value {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// ValidTagField checks a field under which a plugin's tags would show on
// the invoice records beside tag (Tag.Field): a lower-case name the
// record has not of its own.
func ValidTagField(field string) error {
	if !fieldName.MatchString(field) || slices.Contains(recordFields(), field) {
		return fmt.Errorf("invoice records cannot show tags as %q", field)
	}
	return nil
}

// fieldName is the shape of a tag's field.
var fieldName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// recordFields are the JSON names of the invoice record's own fields.
func recordFields() []string {
	t := reflect.TypeFor[Invoice]()
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// MarshalJSON writes the invoice as the API shows it: with its tag's
// value under the tag's field too, after the others, when the invoice was
// made by a plugin that shows its tags so (Tag.Field, kept with the
// invoice: a field the records had before tags, which clients read).
func (i Invoice) MarshalJSON() ([]byte, error) {
	type plain Invoice // the fields, without this method
	b, err := json.Marshal(plain(i))
	if err != nil || i.Tag == nil || i.Tag.Field == "" {
		return b, err
	}
	name, _ := json.Marshal(i.Tag.Field)
	value, _ := json.Marshal(i.Tag.Value)
	out := make([]byte, 0, len(b)+len(name)+len(value)+2)
	out = append(out, b[:len(b)-1]...) // b is an object with an id: it ends in '}'
	out = append(out, ',')
	out = append(out, name...)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, '}'), nil
}
