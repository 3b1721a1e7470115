package api

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/patch"
)

//go:embed docs.html
var docsPage []byte

// openAPIDoc is built once from the route table.
type openAPIDoc struct {
	once sync.Once
	body []byte
}

func (s *Server) openAPI(w http.ResponseWriter, _ bunrouter.Request) error {
	s.doc.once.Do(func() {
		b, err := json.Marshal(s.buildOpenAPI())
		if err != nil {
			panic(err) // the document is built from static types: a bug, caught by tests
		}
		s.doc.body = b
	})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache")
	_, err := w.Write(s.doc.body)
	return err
}

func (s *Server) docs(w http.ResponseWriter, _ bunrouter.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
	_, err := w.Write(docsPage)
	return err
}

type obj = map[string]any

func (s *Server) buildOpenAPI() obj {
	g := &schemaGen{defs: obj{}}
	if s.plugins != nil {
		// The invoice shows a built-in's tags under a field of the
		// built-in's too (host.Builtin.TagField), always a string.
		g.extra = map[reflect.Type][]string{reflect.TypeFor[ledger.Invoice](): s.plugins.TagFields()}
	}
	g.schema(reflect.TypeFor[Problem]()) // registers components.schemas.Problem
	paths := obj{}
	for _, rt := range s.routes {
		path, params := openAPIPath(rt.path)
		for _, q := range rt.query {
			param := obj{"name": q, "in": "query", "schema": obj{"type": queryType(q)}}
			if d := queryNotes[q]; d != "" {
				param["description"] = d
			}
			params = append(params, param)
		}
		op := obj{
			"summary":     rt.summary,
			"tags":        []string{rt.tag},
			"operationId": strings.ToLower(rt.method) + strings.NewReplacer("/", "_", ":", "", "-", "_", ".", "_").Replace(rt.path),
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		desc := ""
		switch rt.access {
		case public:
			op["security"] = []obj{}
		case authed, admin:
			op["security"] = []obj{{"bearerAuth": []string{}}, {"apiKey": []string{}}}
			if rt.scope != 0 {
				desc = "Requires the " + rt.scope.String() + " permission."
				op["x-required-scope"] = rt.scope.String()
			}
			if rt.access == admin {
				desc += " Admin principal only."
				op["x-admin-only"] = true
			}
		}
		if rt.note != "" {
			desc = rt.note + " " + desc
		}
		if desc != "" {
			op["description"] = strings.TrimSpace(desc)
		}
		if rt.body != nil {
			op["requestBody"] = obj{"required": true, "content": obj{
				"application/json": obj{"schema": g.schema(reflect.TypeOf(rt.body))}}}
		}
		ok := obj{"description": http.StatusText(rt.status)}
		if rt.resp != nil {
			ok["content"] = obj{"application/json": obj{"schema": g.schema(reflect.TypeOf(rt.resp))}}
		}
		if slices.Contains(rt.query, "after") {
			ok["headers"] = obj{"Link": obj{"description": linkNote, "schema": obj{"type": "string"}}}
		}
		if rt.stream {
			ok["content"] = obj{"text/event-stream": ok["content"].(obj)["application/json"]}
		}
		if rt.file {
			ok["content"], ok["headers"] = fileContent(ok["content"].(obj)["application/json"])
		}
		if rt.path == "/docs" {
			ok["content"] = obj{"text/html": obj{"schema": obj{"type": "string"}}}
		}
		op["responses"] = obj{
			strconv.Itoa(rt.status): ok,
			"default": obj{"description": "An error", "content": obj{
				"application/json": obj{"schema": obj{"$ref": "#/components/schemas/Problem"}}}},
		}
		item, _ := paths[path].(obj)
		if item == nil {
			item = obj{}
			paths[path] = item
		}
		item[strings.ToLower(rt.method)] = op
	}
	return obj{
		"openapi": "3.0.3",
		"info": obj{
			"title":       "Hearth",
			"version":     s.version,
			"description": "Self-hosted Lightning and on-chain wallet server. Errors are JSON {status, reason, code}.",
		},
		"paths": paths,
		"components": obj{
			"schemas": g.defs,
			"securitySchemes": obj{
				"bearerAuth": obj{"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
					"description": "A sign-in (or OIDC) token. An API key sent here is refused (401 invalid_token): it goes in the Api-Key header."},
				"apiKey": obj{"type": "apiKey", "in": "header", "name": "Api-Key", "description": "An API key, hk_…"},
			},
		},
	}
}

func queryType(name string) string {
	if name == "limit" || name == "offset" {
		return "integer"
	}
	return "string"
}

// openAPIPath turns /v1/x/:id into /v1/x/{id} and lists the parameters.
func openAPIPath(p string) (string, []obj) {
	var params []obj
	parts := strings.Split(p, "/")
	for i, part := range parts {
		name, ok := strings.CutPrefix(part, ":")
		if !ok {
			name, ok = strings.CutPrefix(part, "*")
		}
		if ok {
			parts[i] = "{" + name + "}"
			schema := obj{"type": "string"}
			if name == "id" {
				schema["format"] = "uuid"
			}
			params = append(params, obj{"name": name, "in": "path", "required": true, "schema": schema})
		}
	}
	return strings.Join(parts, "/"), params
}

// schemaGen writes JSON Schemas of Go types as encoding/json sees them;
// named structs go to components.schemas and are referenced.
type schemaGen struct {
	defs obj
	// extra are, for a record type, the string fields its JSON has beyond
	// its struct's.
	extra map[reflect.Type][]string
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	scopesType  = reflect.TypeFor[auth.Scopes]()
	renewalType = reflect.TypeFor[budget.Renewal]()
)

func (g *schemaGen) schema(t reflect.Type) obj {
	t = patch.Elem(t)
	switch {
	case t == timeType:
		return obj{"type": "string", "format": "date-time"}
	case t == scopesType:
		return obj{"type": "array", "items": obj{"type": "string", "enum": auth.AllScopes.Names()}}
	case t == renewalType:
		return obj{"type": "string", "enum": []budget.Renewal{budget.Daily, budget.Weekly, budget.Monthly, budget.Yearly, budget.Never}}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.schema(t.Elem())
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return obj{"type": "integer", "format": "int64"}
	case reflect.Float64, reflect.Float32:
		return obj{"type": "number"}
	case reflect.Slice, reflect.Array:
		return obj{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return obj{"type": "object"}
	case reflect.Struct:
		name := schemaName(t)
		if name == "" {
			return g.structSchema(t)
		}
		if _, done := g.defs[name]; !done {
			g.defs[name] = obj{} // placeholder against recursion
			g.defs[name] = g.structSchema(t)
		}
		return obj{"$ref": "#/components/schemas/" + name}
	}
	return obj{}
}

func (g *schemaGen) structSchema(t reflect.Type) obj {
	props := obj{}
	var req []string
	g.fields(t, props, &req)
	for _, f := range g.extra[t] {
		props[f] = obj{"type": "string"}
	}
	s := obj{"type": "object", "properties": props}
	if len(req) > 0 {
		s["required"] = req
	}
	return s
}

func (g *schemaGen) fields(t reflect.Type, props obj, req *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, props, req)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.schema(f.Type)
		if !strings.Contains(opts, "omitempty") {
			*req = append(*req, name)
		}
	}
}

// schemaName names a struct in components: Wallet, APIKey, and for the
// unexported request types their name with the first letter raised;
// package budget's types are BudgetSpec and BudgetStatus.
func schemaName(t reflect.Type) string {
	n := t.Name()
	if n == "" {
		return ""
	}
	if t.PkgPath() == renewalType.PkgPath() {
		n = "Budget" + n
	}
	return strings.ToUpper(n[:1]) + n[1:]
}
