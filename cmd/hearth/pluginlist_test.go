package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var nextLink = regexp.MustCompile(`<([^>]*)>;\s*rel="(next|prev)"`)

// linksOf reads a reply's Link header: rel → URL.
func linksOf(r reply) map[string]string {
	out := map[string]string{}
	for _, m := range nextLink.FindAllStringSubmatch(r.header.Get("Link"), -1) {
		out[m[2]] = m[1]
	}
	return out
}

// A plugin's list pages by cursor as Hearth's own lists do (host.List):
// a Link header to the next page, and on a page read by cursor to the
// previous one; the pages hold the whole list once, in its order; a
// cursor that is none is a 400.
func TestPluginListsPageByCursor(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		_, c := serveProcess(t, append(environ, webhookEnv...))
		token := signUp(t, c)
		for i := range 5 {
			c.expect(c.call("POST", "/v1/me/webhooks", fmt.Sprintf(`{"url":"https://hooks.example/%d","events":["invoice.settled"]}`, i), token), 201)
		}
		ids := func(r reply) []string {
			var rows []struct{ ID string }
			c.decode(r, &rows)
			var out []string
			for _, row := range rows {
				out = append(out, row.ID)
			}
			return out
		}
		for _, dir := range []string{"Desc", "Asc"} {
			whole := ids(c.expect(c.call("GET", "/v1/me/webhooks?limit=1000&order_direction="+dir, "", token), 200))
			var got []string
			var pages []reply
			for path := "/v1/me/webhooks?limit=2&order_direction=" + dir; path != ""; path = linksOf(pages[len(pages)-1])["next"] {
				if len(pages) > 5 {
					t.Fatalf("more than 5 pages of 5 webhooks")
				}
				pages = append(pages, c.expect(c.call("GET", path, "", token), 200))
				got = append(got, ids(pages[len(pages)-1])...)
			}
			if len(whole) != 5 || !slices.Equal(got, whole) || len(pages) != 3 {
				t.Fatalf("%s: %d pages read %q, the whole list is %q", dir, len(pages), got, whole)
			}
			back := c.expect(c.call("GET", linksOf(pages[1])["prev"], "", token), 200)
			if !slices.Equal(ids(back), whole[:2]) || !strings.Contains(linksOf(pages[1])["prev"], "before=") {
				t.Fatalf("%s: the second page's prev gave %q, want %q", dir, ids(back), whole[:2])
			}
		}
		bad := c.expect(c.call("GET", "/v1/me/webhooks?after=nope", "", token), 400)
		var problem struct{ Reason string }
		if err := json.Unmarshal(bad.body, &problem); err != nil || !strings.Contains(problem.Reason, "after") {
			t.Fatalf("a cursor that is none: %s", bad.body)
		}
	})
}
