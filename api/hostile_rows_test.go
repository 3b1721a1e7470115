package api_test

import (
	"bytes"
	"fmt"
	"strings"
)

// bodyRoute is a route that takes a JSON body, with a body of the right
// shape: its string fields hold "@" where a hostile value goes.
type bodyRoute struct {
	method, path string
	public       bool
	body         map[string]any
	strings      []string // the fields (dotted into nested objects) that hold text
	unknownOK    bool     // the body is a map of the plugin's own: any key is a field
}

func (h *hostileKit) bodyRoutes() []bodyRoute {
	return []bodyRoute{
		{method: "POST", path: "/v1/auth/sign-up", public: true, body: map[string]any{"password": "@"}, strings: []string{"password"}},
		{method: "POST", path: "/v1/auth/sign-in", public: true, body: map[string]any{"password": "@"}, strings: []string{"password"}},
		{method: "POST", path: "/v1/auth/change-password", body: map[string]any{"current_password": "@", "new_password": "@"}, strings: []string{"current_password", "new_password"}},
		{method: "POST", path: "/v1/me/invoices", body: map[string]any{"amount_msat": 1000, "description": "@"}, strings: []string{"description"}},
		{method: "POST", path: "/v1/me/payments", body: map[string]any{"input": "@", "comment": "@"}, strings: []string{"input", "comment"}},
		{method: "POST", path: "/v1/me/payments/fee-estimate", body: map[string]any{"input": "@", "comment": "@"}, strings: []string{"input", "comment"}},
		{method: "POST", path: "/v1/me/api-keys", body: map[string]any{"name": "@", "permissions": []string{"@"}, "description": "@"}, strings: []string{"name", "permissions", "description"}},
		{method: "POST", path: "/v1/wallets", body: map[string]any{"user_id": "@", "label": "@"}, strings: []string{"user_id", "label"}},
		{method: "POST", path: "/v1/invoices", body: map[string]any{"wallet_id": "@", "amount_msat": 1000, "description": "@"}, strings: []string{"wallet_id", "description"}},
		{method: "POST", path: "/v1/payments", body: map[string]any{"wallet_id": "@", "input": "@"}, strings: []string{"wallet_id", "input"}},
		{method: "POST", path: "/v1/lightning-node/pay", body: map[string]any{"bolt11": "@"}, strings: []string{"bolt11"}},
		{method: "POST", path: "/v1/api-keys", body: map[string]any{"user_id": "@", "name": "@", "permissions": []string{"@"}}, strings: []string{"user_id", "name", "permissions"}},
		{method: "POST", path: "/v1/plugins", body: map[string]any{"manifest": map[string]any{"name": "@"}, "wasm": "@", "sha256": "@"}, strings: []string{"manifest.name", "wasm", "sha256"}},
		{method: "POST", path: "/v1/plugins/nosuch/enable", body: map[string]any{"scopes": []string{"@"}, "wallet_id": "@"}, strings: []string{"scopes", "wallet_id"}},
		{method: "PUT", path: "/v1/plugins/nosuch/config", body: map[string]any{"greeting": "@"}, strings: []string{"greeting"}, unknownOK: true},
	}
}

// withText is the route's body with text in field and plain "x" in the
// other string fields; text is spliced in raw, so that it may hold bytes
// that json.Marshal would mend.
func (h *hostileKit) withText(r bodyRoute, field, rawJSONString string) []byte {
	b := mustJSON(h.t, r.body)
	// Put a marker in the field, then everything else to "x".
	marked := map[string]any{}
	if err := jsonUnmarshal(b, &marked); err != nil {
		h.t.Fatal(err)
	}
	setField(marked, field, "\u2603MARK\u2603")
	b = mustJSON(h.t, marked)
	b = bytes.ReplaceAll(b, []byte(`"@"`), []byte(`"x"`))
	return bytes.Replace(b, []byte(`"☃MARK☃"`), []byte(rawJSONString), 1)
}

func setField(m map[string]any, dotted string, v any) {
	head, rest, nested := strings.Cut(dotted, ".")
	if nested {
		setField(m[head].(map[string]any), rest, v)
		return
	}
	if _, list := m[head].([]any); list {
		m[head] = []any{v}
		return
	}
	m[head] = v
}

// rows is the table: generated rows for every body route, then rows of
// paths, queries, numbers and credentials.
func (h *hostileKit) rows() []hostileRow {
	var rows []hostileRow
	badTexts := []struct{ name, raw string }{
		{"NUL", `"a\u0000b"`},
		{"raw invalid UTF-8", "\"a\xffb\""},
		{"escape character", `"a\u001bb"`},
		{"DEL", `"a\u007fb"`},
	}
	for _, r := range h.bodyRoutes() {
		auth := h.admin
		if r.public {
			auth = nil
		}
		valid := h.withText(r, r.strings[0], `"x"`)
		head := with(jsonCT, auth...)
		for _, bt := range badTexts {
			for _, f := range r.strings {
				rows = append(rows, bad400(fmt.Sprintf("%s %s: %s in %s", r.method, r.path, bt.name, f), r.method, r.path, h.withText(r, f, bt.raw), head))
			}
		}
		rows = append(rows,
			bad400(r.method+" "+r.path+": malformed JSON", r.method, r.path, []byte(`{"a": x}`), head),
			bad400(r.method+" "+r.path+": truncated JSON", r.method, r.path, valid[:len(valid)-1], head),
			bad400(r.method+" "+r.path+": array body", r.method, r.path, []byte(`[`+string(valid)+`]`), head),
			bad400(r.method+" "+r.path+": trailing data", r.method, r.path, append(append([]byte{}, valid...), " {}"...), head),
			bad400(r.method+" "+r.path+": empty body", r.method, r.path, []byte{}, head),
			bad400(r.method+" "+r.path+": raw control byte", r.method, r.path, bytes.Replace(valid, []byte(`"x"`), []byte("\"a\x01b\""), 1), head),
			hostileRow{name: r.method + " " + r.path + ": text/plain", method: r.method, path: r.path, body: valid,
				headers: with(auth, "Content-Type", "text/plain"), status: 415, code: "unsupported_media_type"},
			hostileRow{name: r.method + " " + r.path + ": no Content-Type", method: r.method, path: r.path, body: valid,
				headers: auth, status: 415, code: "unsupported_media_type"},
			hostileRow{name: r.method + " " + r.path + ": form body", method: r.method, path: r.path, body: []byte("a=b"),
				headers: with(auth, "Content-Type", "application/x-www-form-urlencoded"), status: 415, code: "unsupported_media_type"},
			hostileRow{name: r.method + " " + r.path + ": Expect 100-continue over the limit", method: r.method, path: r.path, body: valid,
				length: 1 << 40, headers: with(head, "Expect", "100-continue"), status: 413, code: "body_too_large"},
		)
		if !r.unknownOK {
			unknown := bytes.Replace(valid, []byte("{"), []byte(`{"zzz_unknown":1,`), 1)
			rows = append(rows, bad400(r.method+" "+r.path+": unknown field", r.method, r.path, unknown, head))
			f := r.strings[0]
			cased := bytes.Replace(valid, []byte(`"`+strings.Split(f, ".")[0]+`"`), []byte(`"`+strings.ToUpper(f[:1])+strings.Split(f, ".")[0][1:]+`"`), 1)
			rows = append(rows, bad400(r.method+" "+r.path+": differently-cased field", r.method, r.path, cased, head))
			i := bytes.LastIndex(valid, []byte(`"x"`))
			wrongType := append(append(append([]byte{}, valid[:i]...), "12"...), valid[i+3:]...)
			rows = append(rows, bad400(r.method+" "+r.path+": number for a string", r.method, r.path, wrongType, head))
		}
	}
	rows = append(rows, h.numberRows()...)
	rows = append(rows, h.pathRows()...)
	rows = append(rows, h.credentialRows()...)
	return rows
}
