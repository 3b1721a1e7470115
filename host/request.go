package host

import (
	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// What every built-in reads of a request the same way, with the errors of
// Hearth's own routes.

// ParseUUID returns raw, the value of parameter or field name, as a
// canonical UUID; anything else is a 400.
func ParseUUID(raw, name string) (string, error) {
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", fault.Invalidf("Invalid %s: expected a UUID", name)
	}
	return id.String(), nil
}

// PathUUID returns the path parameter name as a canonical UUID (400
// otherwise).
func (r *BuiltinRequest) PathUUID(name string) (string, error) {
	return ParseUUID(r.Params[name], name)
}

// QueryUUID returns the query parameter name as a canonical UUID, "" when
// it is absent (400 when it is not a UUID).
func (r *BuiltinRequest) QueryUUID(name string) (string, error) {
	v := r.Query.Get(name)
	if v == "" {
		return "", nil
	}
	return ParseUUID(v, name)
}

// Page reads a list's page from the query as Hearth's own lists read it
// (store.ParsePage): limit, offset, order_direction, and the after or
// before cursor of the list's Link header. It reads one row past the
// limit asked: the handler answers the rows it read with List, which keeps
// those asked for and links the pages around them.
func (r *BuiltinRequest) Page() (store.Page, error) { return store.ParsePage(r.Query) }

// ListQuery names a list's query parameters (Page), for a route's
// document.
var ListQuery = []string{"limit", "offset", "order_direction", "after", "before"}

// Listed is a page of a list, as a built-in's handler answers it (List):
// the host writes Rows as JSON, and a Link header to the Next and the Prev
// page where there is one, as on Hearth's own lists.
type Listed struct {
	Rows       any
	Limit      int
	Next, Prev *store.Cursor
}

// List answers a list read with page (BuiltinRequest.Page): at most the
// rows asked for, and the cursors of the pages around them; at is a row's
// place in the list (its created_at and id).
func List[T any](page store.Page, rows []T, at func(*T) store.Cursor) *Listed {
	if rows == nil {
		rows = []T{}
	}
	rows, next, prev := store.PageOf(page, rows, at)
	return &Listed{Rows: rows, Limit: page.Limit - 1, Next: next, Prev: prev}
}
