package store

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/hearthwallet/hearth/core/fault"
)

// MaxOffset bounds a list's offset: the databases' drivers take it as a
// 32-bit number, and a larger one wrapped around to an earlier page.
const MaxOffset = 1<<31 - 1

// ParsePage reads a list's page from its query, as every list of the API
// and of the plugins reads it: limit (1–1000, default 100), offset
// (0–MaxOffset), order_direction (Asc or Desc, the default), and an after
// or a before cursor (Cursor.String) from the list's Link header, with no
// offset. Its errors are 400s. The page reads one row past the limit asked,
// so that PageOf can tell whether more follow.
func ParsePage(q url.Values) (Page, error) {
	p := Page{Limit: 100}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return p, fault.Invalidf("Invalid limit: expected an integer from 1 to 1000")
		}
		p.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxOffset {
			return p, fault.Invalidf("Invalid offset: expected an integer from 0 to %d", MaxOffset)
		}
		p.Offset = n
	}
	switch q.Get("order_direction") {
	case "", "Desc", "desc":
	case "Asc", "asc":
		p.Asc = true
	default:
		return p, fault.Invalidf("Invalid order_direction: expected Asc or Desc")
	}
	for _, name := range []string{"after", "before"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		c, err := ParseCursor(v)
		if err != nil {
			return p, fault.Invalidf("Invalid %s: expected a cursor from this list's Link header", name)
		}
		if name == "after" {
			p.After = &c
		} else {
			p.Before = &c
		}
	}
	switch {
	case p.After != nil && p.Before != nil:
		return p, fault.Invalidf("Invalid query: after and before cannot be combined")
	case (p.After != nil || p.Before != nil) && p.Offset > 0:
		return p, fault.Invalidf("Invalid query: offset cannot be combined with after or before")
	}
	p.Limit++
	return p, nil
}

// PageOf is the page of rows read with p (from ParsePage): at most the rows
// asked for, in the list's order, and the cursors of the next page, when
// more rows follow, and of the previous one, when p was read by cursor and
// rows precede it (nil when there is none). at is a row's place.
func PageOf[T any](p Page, rows []T, at func(*T) Cursor) (page []T, next, prev *Cursor) {
	n := p.Limit - 1
	more := len(rows) > n
	if more {
		rows = rows[:n]
	}
	if p.Before != nil {
		slices.Reverse(rows) // read nearest first
	}
	if len(rows) == 0 {
		return rows, nil, nil
	}
	hasNext, hasPrev := more, p.After != nil
	if p.Before != nil {
		hasNext, hasPrev = true, more
	}
	if hasNext {
		c := at(&rows[len(rows)-1])
		next = &c
	}
	if hasPrev {
		c := at(&rows[0])
		prev = &c
	}
	return rows, next, prev
}
