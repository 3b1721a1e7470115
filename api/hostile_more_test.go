package api_test

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// numberRows: wrong types, huge, negative and fractional numbers.
func (h *hostileKit) numberRows() []hostileRow {
	head := with(jsonCT, h.admin...)
	inv := func(amount string) []byte { return []byte(`{"amount_msat":` + amount + `}`) }
	rows := []hostileRow{
		bad400("amount as a string", "POST", "/v1/me/invoices", inv(`"1000"`), head),
		bad400("amount as a boolean", "POST", "/v1/me/invoices", inv(`true`), head),
		bad400("amount as an object", "POST", "/v1/me/invoices", inv(`{}`), head),
		bad400("amount over int64", "POST", "/v1/me/invoices", inv(`9223372036854775808`), head),
		bad400("amount 1e400", "POST", "/v1/me/invoices", inv(`1e400`), head),
		bad400("fractional amount", "POST", "/v1/me/invoices", inv(`1.5`), head),
		bad400("amount in exponent form", "POST", "/v1/me/invoices", inv(`1e3`), head),
		bad400("amount null", "POST", "/v1/me/invoices", inv(`null`), head),
		bad400("expiry as a string", "POST", "/v1/me/invoices", []byte(`{"amount_msat":1000,"expiry":"60"}`), head),
		bad400("permissions as a string", "POST", "/v1/me/api-keys", []byte(`{"name":"k","permissions":"read:wallet"}`), head),
		bad400("scopes as an object", "POST", "/v1/plugins/nosuch/enable", []byte(`{"scopes":{}}`), head),
		bad400("input null", "POST", "/v1/me/payments", []byte(`{"input":null}`), head),
		bad400("payment amount over int64", "POST", "/v1/me/payments", []byte(`{"input":"lnbcrt1x","amount_msat":99999999999999999999}`), head),
		bad400("key expiry over int64", "POST", "/v1/me/api-keys", []byte(`{"name":"k","permissions":["read:wallet"],"expiry":1e30}`), head),
		bad400("differently-cased amount", "POST", "/v1/me/invoices", []byte(`{"Amount_Msat":1000}`), head),
		bad400("upper-case input", "POST", "/v1/me/payments", []byte(`{"INPUT":"lnbcrt1x"}`), head),
		bad400("nested unknown field in a manifest's sibling", "POST", "/v1/wallets", []byte(`{"user_id":"dan","label":"l","User_id":"eve"}`), head),
		{name: "negative amount", method: "POST", path: "/v1/me/invoices", body: inv(`-1`), headers: head, status: 422, code: "invalid_amount"},
		{name: "zero amount", method: "POST", path: "/v1/me/invoices", body: inv(`0`), headers: head, status: 422, code: "invalid_amount"},
		{name: "int64 minimum amount", method: "POST", path: "/v1/me/invoices", body: inv(`-9223372036854775808`), headers: head, status: 422, code: "invalid_amount"},
		{name: "int64 maximum amount", method: "POST", path: "/v1/me/invoices", body: inv(`9223372036854775807`), headers: head, status: 422, code: "invalid_amount"},
		{name: "negative key expiry", method: "POST", path: "/v1/me/api-keys", body: []byte(`{"name":"k","permissions":["read:wallet"],"expiry":-5}`), headers: head, status: 422, code: "invalid_api_key_request"},
	}
	return rows
}

// pathRows: NUL, control bytes, invalid UTF-8, unicode and traversal in
// paths; bad UUIDs; limits, offsets and filters out of range.
func (h *hostileKit) pathRows() []hostileRow {
	var rows []hostileRow
	for _, p := range []string{
		"/v1/system/setup%00", "/v1/system/health%00", "/v1/me%00", "/v1/me/balance%00", "/v1/me/invoices/%00",
		"/v1/me/payments/%00", "/v1/me/api-keys/%00", "/v1/wallets/%00", "/v1/invoices/%00", "/v1/payments/%00",
		"/v1/api-keys/%00", "/v1/lightning-node/info%00", "/v1/plugins/%00", "/v1/plugins/x/%00", "/.well-known/%00",
		"/v1/auth/sign-in%00", "/v1/openapi.json%00", "/docs%00", "/%00", "/v1/%00/me",
		"/v1/me/invoices/%1b", "/v1/wallets/%ff", "/v1/me%c3%28", "/v1/plugins/%ff/x", "/v1/wallets/%0a",
	} {
		rows = append(rows, hostileRow{name: "path " + p, method: "GET", path: p, status: 400, code: "invalid_path"})
	}
	rows = append(rows,
		hostileRow{name: "path with a NUL, anonymous POST", method: "POST", path: "/v1/auth/sign-up%00", body: []byte(`{}`), headers: jsonCT, status: 400, code: "invalid_path"},
		hostileRow{name: "traversal to an admin route", method: "GET", path: "/v1/me/../wallets", headers: h.nonAdmin, status: 400, code: "invalid_path"},
		hostileRow{name: "encoded traversal", method: "GET", path: "/v1/me/%2e%2e/wallets", headers: h.nonAdmin, status: 400, code: "invalid_path"},
		hostileRow{name: "dot segment", method: "GET", path: "/v1/./me", headers: h.admin, status: 400, code: "invalid_path"},
		hostileRow{name: "traversal out of well-known", method: "GET", path: "/.well-known/../v1/wallets", status: 400, code: "invalid_path"},
		hostileRow{name: "unicode route", method: "GET", path: "/v1/m%C3%A9", headers: h.admin, status: 404, code: "not_found"},
		hostileRow{name: "traversal in an id", method: "GET", path: "/v1/me/invoices/..%2F..%2Fwallets", headers: h.admin, status: 400, code: "invalid_path"},
		bad400("right-to-left mark in an id", "GET", "/v1/me/invoices/%E2%80%AE"+uuid.NewString()[1:], nil, h.admin),
		bad400("fullwidth digits in an id", "GET", "/v1/wallets/"+strings.Repeat("%EF%BC%90", 36), nil, h.admin),
		bad400("UUID in braces", "GET", "/v1/payments/%7B"+unknownID+"%7D", nil, h.admin),
		bad400("URN UUID", "GET", "/v1/invoices/urn:uuid:"+unknownID, nil, h.admin),
		bad400("UUID without dashes", "DELETE", "/v1/api-keys/"+strings.ReplaceAll(unknownID, "-", ""), nil, h.admin),
		bad400("UUID too long", "GET", "/v1/me/payments/"+unknownID+"0", nil, h.admin),
		bad400("not a UUID", "DELETE", "/v1/me/api-keys/not-a-uuid", nil, h.admin),
		bad400("limit 0", "GET", "/v1/wallets?limit=0", nil, h.admin),
		bad400("limit over 1000", "GET", "/v1/me/invoices?limit=1001", nil, h.admin),
		bad400("limit not a number", "GET", "/v1/me/payments?limit=ten", nil, h.admin),
		bad400("limit over int64", "GET", "/v1/api-keys?limit=99999999999999999999", nil, h.admin),
		bad400("negative offset", "GET", "/v1/invoices?offset=-1", nil, h.admin),
		bad400("offset past 32 bits", "GET", "/v1/me/invoices?offset=4294967297", nil, h.admin),
		bad400("offset 2^63-1", "GET", "/v1/payments?offset=9223372036854775807", nil, h.admin),
		bad400("offset 2^31", "GET", "/v1/wallets?offset=2147483648", nil, h.admin),
		bad400("bad order_direction", "GET", "/v1/me/api-keys?order_direction=sideways", nil, h.admin),
		bad400("bad status filter", "GET", "/v1/me/invoices?status=Paid", nil, h.admin),
		bad400("bad ledger filter", "GET", "/v1/me/payments?ledger=Cash", nil, h.admin),
		bad400("bad wallet_id filter", "GET", "/v1/invoices?wallet_id=nope", nil, h.admin),
		hostileRow{name: "NUL in a query value", method: "GET", path: "/v1/api-keys?user_id=a%00b", headers: h.admin, status: 400, code: "invalid_query"},
		hostileRow{name: "invalid UTF-8 in a query value", method: "GET", path: "/v1/api-keys?user_id=%ff", headers: h.admin, status: 400, code: "invalid_query"},
		hostileRow{name: "NUL in a query key", method: "GET", path: "/v1/wallets?a%00=1", headers: h.admin, status: 400, code: "invalid_query"},
		hostileRow{name: "malformed query escape", method: "GET", path: "/v1/wallets?limit=%zz", headers: h.admin, status: 400, code: "invalid_query"},
		hostileRow{name: "control byte in Idempotency-Key", method: "POST", path: "/v1/me/payments", body: []byte(`{"input":"lnbcrt1x"}`),
			headers: with(with(jsonCT, h.admin...), "Idempotency-Key", "a\x01b"), status: 400, code: "invalid_request"},
		hostileRow{name: "wrong method, with Allow", method: "PATCH", path: "/v1/me/invoices", headers: h.admin, status: 405, code: "method_not_allowed"},
	)
	return rows
}

// credentialRows: forged, expired and revoked credentials, and other
// users' keys on admin routes.
func (h *hostileKit) credentialRows() []hostileRow {
	var rows []hostileRow
	for _, c := range []struct {
		name string
		head []string
		code string
	}{
		{"alg=none JWT", h.algNone, "invalid_token"},
		{"JWT signed with an empty key", h.emptyKey, "invalid_token"},
		{"JWT of another secret", h.otherSecret, "invalid_token"},
		{"expired JWT", h.expiredJWT, "invalid_token"},
		{"revoked key", h.revoked, "invalid_api_key"},
		{"expired key", h.expired, "invalid_api_key"},
	} {
		rows = append(rows,
			hostileRow{name: c.name + " on an admin route", method: "GET", path: "/v1/wallets", headers: c.head, status: 401, code: c.code},
			hostileRow{name: c.name + " paying", method: "POST", path: "/v1/payments", headers: with(c.head, jsonCT...),
				body: []byte(`{"wallet_id":"` + h.walletID + `","input":"lnbcrt1x"}`), status: 401, code: c.code},
		)
	}
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/wallets", ""},
		{"GET", "/v1/wallets/" + h.walletID, ""},
		{"DELETE", "/v1/wallets/" + h.walletID, ""},
		{"POST", "/v1/wallets", `{"user_id":"mallory"}`},
		{"POST", "/v1/payments", `{"wallet_id":"` + h.walletID + `","input":"lnbcrt1x"}`},
		{"POST", "/v1/invoices", `{"wallet_id":"` + h.walletID + `","amount_msat":1000}`},
		{"GET", "/v1/api-keys", ""},
		{"POST", "/v1/api-keys", `{"user_id":"admin","name":"k","permissions":["read:wallet"]}`},
		{"POST", "/v1/plugins", `{}`},
		{"POST", "/v1/auth/change-password", `{"current_password":"correct horse battery","new_password":"mallory was here"}`},
	} {
		row := hostileRow{name: "another user's key: " + r.method + " " + r.path, method: r.method, path: r.path,
			headers: h.nonAdmin, status: 403, code: "admin_only"}
		if r.body != "" {
			row.body, row.headers = []byte(r.body), with(h.nonAdmin, jsonCT...)
		}
		rows = append(rows, row)
	}
	rows = append(rows,
		hostileRow{name: "Basic credentials", method: "GET", path: "/v1/me", headers: []string{"Authorization", "Basic YWRtaW46cHc="}, status: 401, code: "invalid_token"},
		hostileRow{name: "bearer with a NUL", method: "GET", path: "/v1/me", headers: []string{"Authorization", "Bearer a\x00b"}, status: 401, code: "invalid_token"},
		hostileRow{name: "API key with invalid UTF-8", method: "GET", path: "/v1/me", headers: []string{"Api-Key", "hk_\xff"}, status: 401, code: "invalid_api_key"},
	)
	return rows
}
