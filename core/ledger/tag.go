package ledger

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
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

// publishedTags maps a plugin's name to the field of the invoice record
// that shows its tags' values too (PublishTag).
var publishedTags sync.Map

// PublishTag shows the value of plugin's tags on its invoices' records
// under field too, beside tag: for a field the records had before tags
// existed (the Lightning Address's ln_address_id), which clients read. The
// host calls it for a built-in that names a TagField. field is a lower-case
// name the record has not (neither its own fields nor another plugin's);
// publishing the same field for the same plugin again changes nothing.
func PublishTag(plugin, field string) error {
	if !fieldName.MatchString(field) || slices.Contains(recordFields(), field) {
		return fmt.Errorf("invoice records cannot show tags as %q", field)
	}
	var taken error
	publishedTags.Range(func(p, f any) bool {
		if f == field && p != plugin {
			taken = fmt.Errorf("invoice records show %s's tags as %q already", p, field)
		}
		return taken == nil
	})
	if taken != nil {
		return taken
	}
	publishedTags.Store(plugin, field)
	return nil
}

// fieldName is the shape of a field PublishTag adds.
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

// PublishedTagFields are the fields PublishTag added to the records, for
// the API's description of them.
func PublishedTagFields() []string {
	var out []string
	publishedTags.Range(func(_, f any) bool {
		out = append(out, f.(string))
		return true
	})
	slices.Sort(out)
	return out
}

// JSONExtraFields are the fields the plugins published for their tags
// (PublishTag), which the record may show beside its own: strings, for the
// API's description of the record.
func (Invoice) JSONExtraFields() []string { return PublishedTagFields() }

// MarshalJSON writes the invoice as the API shows it, with the field its
// tag's plugin published (PublishTag), if any, after the others.
func (i Invoice) MarshalJSON() ([]byte, error) {
	type plain Invoice // the fields, without this method
	b, err := json.Marshal(plain(i))
	if err != nil || i.Tag == nil {
		return b, err
	}
	field, ok := publishedTags.Load(i.Tag.Plugin)
	if !ok {
		return b, nil
	}
	name, _ := json.Marshal(field.(string))
	value, _ := json.Marshal(i.Tag.Value)
	out := make([]byte, 0, len(b)+len(name)+len(value)+2)
	out = append(out, b[:len(b)-1]...) // b is an object with an id: it ends in '}'
	out = append(out, ',')
	out = append(out, name...)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, '}'), nil
}
