package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/fault"
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
