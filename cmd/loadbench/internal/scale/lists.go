package scale

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/operator"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// listFigure is one list's latency over its calls.
type listFigure struct {
	name     string
	p50, p99 time.Duration
}

// nextLink is a Link header's rel="next" target.
var nextLink = regexp.MustCompile(`<([^>]+)>;\s*rel="next"`)

// measureLists times each list the issue names over l, whose clients
// payers made the n payments, calls times after one
// call unmeasured, from the answer's first byte asked to its last read:
// the admin's payments (first page, at offset n/2, and the cursor page
// that follows that offset's page), the admin's invoices (first page and
// offset 500,000, or n/2 when smaller), and a payer's own payments (first
// page, and a cursor page from the middle of its list), and the admin's
// payments by API key: a payer's key (one payment in 62 names it: first
// page, and the cursor page after its payments' middle) and a new key of
// that payer's, which made no payment.
func measureLists(ctx context.Context, l *operator.Load, clients, n, calls int) ([]listFigure, error) {
	admin, payer := l.Admin(), l.PayerKeys()[0]
	payerKey, err := keyID(ctx, l, "payer-000")
	if err != nil {
		return nil, err
	}
	// A key that made no payment, of a payer whose wallet made a
	// clients-th of them: made now, once per run.
	var idle struct{ ID string }
	if _, err := l.CallJSON(ctx, "POST", "/v1/api-keys", admin, map[string]any{"user_id": "payer-000", "name": idleKeyName,
		"permissions": []string{"read:wallet"}}, http.StatusCreated, &idle); err != nil {
		return nil, err
	}
	idleKey := idle.ID
	deep := strconv.Itoa(n / 2)
	invoicesDeep := strconv.Itoa(min(500_000, n/2))
	// The cursors: the next page after a page read at the offsets (once,
	// not measured).
	adminCursor, err := link(ctx, l, "/v1/payments?limit=100&offset="+deep, admin)
	if err != nil {
		return nil, err
	}
	ownCursor, err := link(ctx, l, "/v1/me/payments?limit=100&offset="+strconv.Itoa(n/clients/2), payer)
	if err != nil {
		return nil, err
	}
	// A payer's key names 4 in 5 of its payments, and each payer makes a
	// clients-th of them.
	keyCursor, err := link(ctx, l, "/v1/payments?limit=100&api_key_id="+payerKey+"&offset="+strconv.Itoa(n*4/5/clients/2), admin)
	if err != nil {
		return nil, err
	}
	var out []listFigure
	for _, q := range []struct{ name, path, credential string }{
		{"admin GET /v1/payments?limit=100", "/v1/payments?limit=100", admin},
		{"the same at offset n/2", "/v1/payments?limit=100&offset=" + deep, admin},
		{"the same by cursor at n/2", adminCursor, admin},
		{"admin GET /v1/invoices?limit=100", "/v1/invoices?limit=100", admin},
		{"GET /v1/invoices?limit=100&offset=" + invoicesDeep, "/v1/invoices?limit=100&offset=" + invoicesDeep, admin},
		{"a wallet's GET /v1/me/payments?limit=100", "/v1/me/payments?limit=100", payer},
		{"the same by cursor in its middle", ownCursor, payer},
		{"admin GET /v1/payments?api_key_id=(a payer's)", "/v1/payments?limit=100&api_key_id=" + payerKey, admin},
		{"the same by cursor in its middle", keyCursor, admin},
		{"the same, a key that made no payment", "/v1/payments?limit=100&api_key_id=" + idleKey, admin},
	} {
		var lats []time.Duration
		for i := range calls + 1 {
			began := time.Now()
			if _, err := l.Get(ctx, q.path, q.credential); err != nil {
				return nil, err
			}
			if i > 0 {
				lats = append(lats, time.Since(began))
			}
		}
		slices.Sort(lats)
		f := listFigure{name: q.name, p50: stats.Percentile(lats, 50), p99: stats.Percentile(lats, 99)}
		fmt.Printf("    %-48s p50 %9s  p99 %9s\n", f.name, stats.Round(f.p50), stats.Round(f.p99))
		out = append(out, f)
	}
	return out, nil
}

// keyID is the id of user's API key, from the admin's list of keys.
func keyID(ctx context.Context, l *operator.Load, user string) (string, error) {
	path := "/v1/api-keys?limit=100"
	for path != "" {
		var keys []struct {
			ID     string `json:"id"`
			UserID string `json:"user_id"`
			Name   string `json:"name"`
		}
		h, err := l.GetJSON(ctx, path, l.Admin(), &keys)
		if err != nil {
			return "", err
		}
		for _, k := range keys {
			if k.UserID == user && k.Name != idleKeyName {
				return k.ID, nil
			}
		}
		path = ""
		if m := nextLink.FindStringSubmatch(h.Get("Link")); m != nil {
			path = m[1]
		}
	}
	return "", fmt.Errorf("no API key of %s in GET /v1/api-keys", user)
}

// link reads path once and returns its Link rel="next" target.
func link(ctx context.Context, l *operator.Load, path, credential string) (string, error) {
	h, err := l.Get(ctx, path, credential)
	if err != nil {
		return "", err
	}
	m := nextLink.FindStringSubmatch(h.Get("Link"))
	if m == nil {
		return "", fmt.Errorf("GET %s: no Link rel=next in %q", path, h.Get("Link"))
	}
	return m[1], nil
}

// idleKeyName names the keys measureLists makes that pay nothing; keyID
// passes them over.
const idleKeyName = "idle"
