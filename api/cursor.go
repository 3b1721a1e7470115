package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

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

// pageParams reads a list's page (store.ParsePage).
func pageParams(req bunrouter.Request) (store.Page, error) {
	return store.ParsePage(req.URL.Query())
}

// writePage answers a list read with page (from pageParams): at most the
// rows asked for, in the list's order, as a JSON array, and a Link header
// to the next page when more rows follow and, on a page read by cursor, to
// the previous one when rows precede it (store.PageOf). at is a row's
// place in the list.
func writePage[T any](w http.ResponseWriter, req bunrouter.Request, page store.Page, rows []T, at func(*T) store.Cursor) {
	rows, next, prev := store.PageOf(page, rows, at)
	setLinks(w, req, page.Limit-1, next, prev)
	writeJSON(w, http.StatusOK, rows)
}

// setLinks sets the Link header of a page of limit rows to its next and
// previous pages, those that are not nil.
func setLinks(w http.ResponseWriter, req bunrouter.Request, limit int, next, prev *store.Cursor) {
	var links []string
	if next != nil {
		links = append(links, pageLink(req, "after", *next, limit, "next"))
	}
	if prev != nil {
		links = append(links, pageLink(req, "before", *prev, limit, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
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
