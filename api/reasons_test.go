package api_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// mainnetInvoice is BOLT11's own example of an invoice with a payment
// secret, on mainnet (the test servers' node is on regtest).
const mainnetInvoice = "lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsnp4q0n326hr8v9zprg8gsvezcch06gfaqqhde2aj730yg0durunfhv66sp5qszsvpcgpyqsyps8pqysqqgzqvyqjqqpqgpsgpgqqypqxpq9qcrsusq8nx2hdt3st3ankwz23xy9w7udvqq3f0mdlpc6ga5ew3y67u4qkx8vu72ejg5x6tqhyclm28r7r0mg6lx9x3vls9g6glp2qy3y34cpry54xp"

// reasonRow is a request a careless client sends and the error it must
// get: the status, the code and the words of the reason.
type reasonRow struct {
	name         string
	method, path string
	body         string
	headers      []string
	status       int
	code         string
	reason       string // the reason begins with it
}

// TestConfusingErrorsAreClear is issue 49's careless user: a number too
// large for its field, an invoice pasted wrong and an API key sent as a
// bearer token each get a reason that says what is wrong, in the client's
// terms (the field, the character and its position, the header), with the
// status api.md gives, on both databases; a BOLT11 invoice gets the same
// answer from /v1/me/payments, its fee estimate and /v1/lightning-node/pay.
func TestConfusingErrorsAreClear(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		e := newEnv(t, db, nil)
		admin := bearer(e.adminToken())
		alice := e.user("alice")
		alice.fund(t, 50_000)
		good := e.user("bob").invoice(t, 10_000).LnInvoice.Bolt11
		sep := strings.LastIndexByte(good, '1')
		key := e.makeKey("alice", auth.NewScopes(auth.ReadWallet))

		rows := []reasonRow{
			{name: "amount over int64", method: "POST", path: "/v1/me/invoices", body: `{"amount_msat": 99999999999999999999999}`, headers: alice.key,
				status: 400, code: "invalid_request", reason: "amount_msat: 99999999999999999999999 is out of range: the largest is 9223372036854775807"},
			{name: "amount under int64", method: "POST", path: "/v1/me/invoices", body: `{"amount_msat": -99999999999999999999999}`, headers: alice.key,
				status: 400, code: "invalid_request", reason: "amount_msat: -99999999999999999999999 is out of range: the smallest is -9223372036854775808"},
			{name: "amount with a fraction", method: "POST", path: "/v1/me/invoices", body: `{"amount_msat": 1000.5}`, headers: alice.key,
				status: 400, code: "invalid_request", reason: "amount_msat: 1000.5 is not a whole number"},
			{name: "amount with an exponent", method: "POST", path: "/v1/me/invoices", body: `{"amount_msat": 1e3}`, headers: alice.key,
				status: 400, code: "invalid_request", reason: "amount_msat: write 1e3 as the whole number 1000"},
			{name: "expiry over int64", method: "POST", path: "/v1/me/invoices", body: `{"amount_msat": 1000, "expiry": 1e40}`, headers: alice.key,
				status: 400, code: "invalid_request", reason: "expiry: 1e40 is out of range: the largest is 9223372036854775807"},
			{name: "a nested field", method: "POST", path: "/v1/me/api-keys", headers: admin,
				body:   `{"name":"k","permissions":["read:wallet"],"budget":{"max_msat":18446744073709551616,"renewal":"daily"}}`,
				status: 400, code: "invalid_request", reason: "budget.max_msat: 18446744073709551616 is out of range: the largest is 9223372036854775807"},
			{name: "a number for text", method: "POST", path: "/v1/me/invoices", body: `{"amount_msat": "1000"}`, headers: alice.key,
				status: 400, code: "invalid_request", reason: "Invalid type for field amount_msat: expected an integer, got string"},
			{name: "API key as a bearer token", method: "GET", path: "/v1/me", headers: bearer(key),
				status: 401, code: "invalid_token", reason: "API keys go in the Api-Key header"},
			{name: "unknown API key as a bearer token", method: "GET", path: "/v1/me", headers: bearer("hk_" + strings.Repeat("A", 43)),
				status: 401, code: "invalid_token", reason: "API keys go in the Api-Key header"},
			{name: "API key with another scheme", method: "GET", path: "/v1/me", headers: []string{"Authorization", "Api-Key " + key},
				status: 401, code: "invalid_token", reason: "API keys go in the Api-Key header"},
		}
		bad := []struct{ name, invoice, reason string }{
			{"a character outside bech32", good[:sep+4] + "b" + good[sep+5:],
				"not a BOLT11 invoice: 'b' at position " + strconv.Itoa(sep+5) + " is not a bech32 character"},
			{"a mistyped character", good[:sep+10] + swap(good[sep+10]) + good[sep+11:],
				"not a BOLT11 invoice: its checksum does not match: a character is mistyped, missing or extra"},
			{"another network", mainnetInvoice, "this is an invoice for mainnet (lnbc…), but this node is on regtest (lnbcrt…)"},
			{"an unknown network", "lnxy" + good[len("lnbcrt"):], `not a BOLT11 invoice: its prefix "lnxy` + good[len("lnbcrt"):sep] + `" names no network`},
			{"cut short", good[:sep+40], "not a BOLT11 invoice: only 39 characters follow the '1', where an invoice has at least 117"},
			{"no separator", strings.ReplaceAll(good, "1", ""), "not a BOLT11 invoice: no '1' separates its prefix from its data"},
			{"mixed case", strings.ToUpper(good[:40]) + good[40:], "not a BOLT11 invoice: it mixes upper-case and lower-case letters"},
		}
		for _, b := range bad {
			for _, to := range []struct{ path, field string }{
				{"/v1/me/payments", "input"}, {"/v1/me/payments/fee-estimate", "input"}, {"/v1/lightning-node/pay", "bolt11"},
			} {
				h := alice.key
				if to.field == "bolt11" {
					h = admin
				}
				rows = append(rows, reasonRow{name: b.name + " to " + to.path, method: "POST", path: to.path,
					body: `{"` + to.field + `":"` + b.invoice + `"}`, headers: h, status: 422, code: "unsupported_input", reason: b.reason})
			}
		}
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				r := e.do(row.method, row.path, row.body, row.headers...)
				p := r.problemIs(t, row.status, row.code)
				if !strings.HasPrefix(p.Reason, row.reason) {
					t.Errorf("reason %q, want it to begin %q", p.Reason, row.reason)
				}
				checkNoLeak(t, p.Reason)
			})
		}
		if got := alice.balance(t).AvailableMsat; got != 50_000 {
			t.Errorf("alice's balance %d after refused payments, want 50000", got)
		}
		e.checkLedger(t)
	})
}

// swap is another character of the bech32 alphabet than c.
func swap(c byte) string {
	if c == 'q' {
		return "p"
	}
	return "q"
}
