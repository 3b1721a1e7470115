package api_test

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestOpenAPIDocumentIsValid loads /v1/openapi.json with kin-openapi and
// validates it as OpenAPI 3: references resolve, schemas are well formed,
// path parameters match their templates.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	body := e.do("GET", "/v1/openapi.json", nil).expect(t, 200).Body

	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(body)
	if err != nil {
		t.Fatalf("loading the document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid OpenAPI 3: %v", err)
	}
	problem := doc.Components.Schemas["Problem"]
	if problem == nil || problem.Value == nil || problem.Ref != "" {
		t.Fatalf("components.schemas.Problem is missing or a reference: %+v", problem)
	}
	for _, field := range []string{"status", "reason", "code"} {
		if problem.Value.Properties[field] == nil {
			t.Errorf("Problem lacks the property %s", field)
		}
	}
	// Every operation's error answer resolves to the Problem object itself.
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			def := op.Responses.Default()
			if def == nil || def.Value == nil {
				t.Fatalf("%s %s has no default (error) response", method, path)
			}
			s := def.Value.Content.Get("application/json").Schema
			if s == nil || s.Value == nil || s.Value.Properties["code"] == nil {
				t.Fatalf("%s %s: the error schema does not resolve to Problem", method, path)
			}
		}
	}
}
