package host

import (
	"strconv"

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

// Page reads a list's limit (1–1000, default 100), offset (0–2^31−1) and
// order_direction (Asc or Desc, the default) from the query.
func (r *BuiltinRequest) Page() (store.Page, error) {
	q := r.Query
	pg := store.Page{Limit: 100}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return pg, fault.Invalidf("Invalid limit: expected an integer from 1 to 1000")
		}
		pg.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<31-1 {
			return pg, fault.Invalidf("Invalid offset: expected an integer from 0 to %d", 1<<31-1)
		}
		pg.Offset = n
	}
	switch q.Get("order_direction") {
	case "", "Desc", "desc":
	case "Asc", "asc":
		pg.Asc = true
	default:
		return pg, fault.Invalidf("Invalid order_direction: expected Asc or Desc")
	}
	return pg, nil
}
