package api

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// linkNote is the OpenAPI description of a paged list's Link header.
const linkNote = `Present when more rows follow: <…?after=CURSOR&limit=N…>; rel="next", the same list from the last row on ` +
	`(its other parameters kept); on a page read by cursor, also rel="prev" back to the rows before it while there are some. ` +
	`A cursor reads from its row through the list's index, in time independent of the depth; an offset reads every row above it.`

// queryNotes describe the cursor parameters in the OpenAPI document.
var queryNotes = map[string]string{
	"after":  "A cursor from the list's Link header (rel=\"next\"): the rows that follow it. Not with offset.",
	"before": "A cursor from the list's Link header (rel=\"prev\"): the rows that precede it. Not with offset.",
	"offset": "Rows to skip; each is read and thrown away, so deep pages get slow: page with after instead.",
}

// pageParams reads a list's page (listParams), and its after or before
// cursor: opaque text from a Link header of the list. The page it returns
// reads one row past the limit asked, so that writePage can tell whether
// more follow.
func pageParams(req bunrouter.Request) (store.Page, error) {
	p, err := listParams(req)
	if err != nil {
		return p, err
	}
	q := req.URL.Query()
	for _, name := range []string{"after", "before"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		c, err := store.ParseCursor(v)
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

// writePage answers a list read with page (from pageParams): at most the
// rows asked for, in the list's order, as a JSON array, and a Link header
// to the next page when more rows follow and, on a page read by cursor, to
// the previous one when rows precede it. at is a row's place in the list.
func writePage[T any](w http.ResponseWriter, req bunrouter.Request, page store.Page, rows []T, at func(*T) store.Cursor) {
	n := page.Limit - 1
	more := len(rows) > n
	if more {
		rows = rows[:n]
	}
	if page.Before != nil {
		slices.Reverse(rows) // read nearest first
	}
	if len(rows) > 0 {
		next, prev := more, page.After != nil
		if page.Before != nil {
			next, prev = true, more
		}
		var links []string
		if next {
			links = append(links, pageLink(req, "after", at(&rows[len(rows)-1]), n, "next"))
		}
		if prev {
			links = append(links, pageLink(req, "before", at(&rows[0]), n, "prev"))
		}
		if len(links) > 0 {
			w.Header().Set("Link", strings.Join(links, ", "))
		}
	}
	writeJSON(w, http.StatusOK, rows)
}

// pageLink is a link to the list of req from c on: the request's path and
// query, its offset and cursor replaced by c under name (after or before).
// It is a reference relative to the request's host (RFC 8288 resolves it
// against the request's URL), which stays right behind a proxy that
// forwards the host.
func pageLink(req bunrouter.Request, name string, c store.Cursor, limit int, rel string) string {
	q := req.URL.Query()
	q.Del("after")
	q.Del("before")
	q.Del("offset")
	q.Set(name, c.String())
	q.Set("limit", strconv.Itoa(limit))
	return "<" + req.URL.EscapedPath() + "?" + q.Encode() + `>; rel="` + rel + `"`
}
