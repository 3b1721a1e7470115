package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// decode reads the JSON object in the request body into dst, refusing any
// media type but JSON, unknown fields (names are matched exactly), trailing
// data, and text that no field may hold (text.go).
func decode(req bunrouter.Request, dst any) error {
	mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return errMediaType
	}
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return errBodyTooLarge
		}
		return fault.Invalidf("Reading the request body failed")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if skipSpace(raw, int(dec.InputOffset())) != len(raw) {
		return fault.Invalidf("Malformed JSON: unexpected data after the object")
	}
	return checkJSON(raw, reflect.TypeOf(dst))
}

func decodeError(err error) error {
	var (
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
		tooLarge *http.MaxBytesError
	)
	switch {
	case errors.As(err, &tooLarge):
		return errBodyTooLarge
	case errors.Is(err, io.EOF):
		return fault.Invalidf("Request body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fault.Invalidf("Malformed JSON: unexpected end of body")
	case errors.As(err, &syntax):
		return fault.Invalidf("Malformed JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fault.Invalidf("The body must be a JSON object, not %s", typ.Value)
		}
		if err := numberError(typ); err != nil {
			return err
		}
		return fault.Invalidf("Invalid type for field %s: expected %s, got %s", typ.Field, jsonType(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for DisallowUnknownFields.
		return fault.Invalidf("Unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		return fault.Invalidf("Malformed JSON")
	}
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	case "float32", "float64":
		return "number"
	default:
		if strings.HasPrefix(kind, "int") || strings.HasPrefix(kind, "uint") {
			return "an integer"
		}
		return "number"
	}
}

// required reports a missing required field.
func required(field string) error {
	return fault.Invalidf("Missing required field: %s", field)
}

// pathID returns the {id} path parameter, which must be a UUID.
func pathID(req bunrouter.Request) (string, error) {
	raw := req.Param("id")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", fault.Invalidf("Invalid id: expected a UUID")
	}
	return id.String(), nil
}

// maxOffset bounds a list's offset: the databases' drivers take it as a
// 32-bit number, and a larger one wrapped around to an earlier page.
const maxOffset = 1<<31 - 1

// listParams reads limit, offset and order_direction.
func listParams(req bunrouter.Request) (store.Page, error) {
	q := req.URL.Query()
	p := store.Page{Limit: 100}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return p, fault.Invalidf("Invalid limit: expected an integer from 1 to 1000")
		}
		p.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxOffset {
			return p, fault.Invalidf("Invalid offset: expected an integer from 0 to %d", maxOffset)
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
	return p, nil
}
