package clntest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The request side of the methods the double serves, written from the
// JSON schemas of Core Lightning v24.11 (doc/schemas/lightning-*.json in
// ElementsProject/lightning at tag v24.11, re-read against v26.06: the
// parameters used here did not change). A request is held to them the way
// lightningd's param() holds it (common/json_param.c): an unknown
// parameter, a missing required one or a value of the wrong type is a
// -32602 error and the command does not run.

// kind is a parameter type of the schemas.
type kind int

const (
	tString kind = iota
	tBool
	tU32
	tU64
	tMsat      // integer, or "123msat" / "123sat" / "0.001btc"
	tMsatOrAny // tMsat, or "any"
	tHex
	tHash // 32 bytes of hex
	tArray
	tLabel   // string or integer
	tPubkey  // 33 bytes of hex
	tFeerate // a name, or a number with a style
)

// param is one parameter of a method.
type param struct {
	name     string
	kind     kind
	required bool
	enum     []string
}

// rpcError is a JSON-RPC error as lightningd words it.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// The error codes of common/jsonrpc_errors.h that the double answers.
const (
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codePayDestPerm      = 203
	codePayRouteNotFound = 205
	codePayExpired       = 207
	codePayUnspecified   = 209
	codePayAlreadyPaid   = 219
	codeLabelExists      = 900
	codePreimageExists   = 901
	codeInvoiceNotFound  = 905
	codeInvoiceStatus    = 906
)

func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// checkParams validates raw (an object, an array or absent) against the
// method's schema and returns the parameters by name.
func checkParams(method string, raw json.RawMessage) (map[string]json.RawMessage, *rpcError) {
	spec, ok := schemas[method]
	if !ok {
		return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("Unknown command '%s'", method)}
	}
	got := map[string]json.RawMessage{}
	trimmed := strings.TrimSpace(string(raw))
	switch {
	case trimmed == "" || trimmed == "null":
	case trimmed[0] == '[':
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, invalidParams("Expected array or object for params")
		}
		if len(list) > len(spec) {
			return nil, invalidParams("too many parameters: got %d, expected %d", len(list), len(spec))
		}
		for i, v := range list {
			if string(v) != "null" {
				got[spec[i].name] = v
			}
		}
	case trimmed[0] == '{':
		if err := json.Unmarshal(raw, &got); err != nil {
			return nil, invalidParams("Expected array or object for params")
		}
	default:
		return nil, invalidParams("Expected array or object for params")
	}
	known := map[string]param{}
	for _, p := range spec {
		known[p.name] = p
	}
	for name := range got {
		if _, ok := known[name]; !ok {
			return nil, invalidParams("unknown parameter: %s, this may be caused by a failure to autodetect key=value-style parameters. Please try using the -k flag and explicit key=value pairs of parameters.", name)
		}
	}
	for _, p := range spec {
		v, ok := got[p.name]
		if !ok {
			if p.required {
				return nil, invalidParams("missing required parameter: %s", p.name)
			}
			continue
		}
		if msg := checkValue(p, v); msg != "" {
			return nil, invalidParams("%s: %s: invalid token (see logs for details)", p.name, msg)
		}
	}
	return got, nil
}

var (
	msatRE = regexp.MustCompile(`^[0-9]+(msat|sat)?$|^[0-9]+\.[0-9]{1,11}btc$`)
	hexRE  = regexp.MustCompile(`^([0-9a-fA-F]{2})*$`)
)

// checkValue returns what is wrong with v as a value of p, in lightningd's
// words, or "".
func checkValue(p param, v json.RawMessage) string {
	var s string
	isString := json.Unmarshal(v, &s) == nil
	switch p.kind {
	case tString:
		if !isString {
			return "should be a string"
		}
		if p.enum != nil && !contains(p.enum, s) {
			return "should be one of " + strings.Join(p.enum, ", ")
		}
	case tBool:
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return "should be 'true' or 'false'"
		}
	case tU32, tU64:
		bits := 64
		if p.kind == tU32 {
			bits = 32
		}
		if isString {
			return fmt.Sprintf("should be an unsigned %d bit integer", bits)
		}
		if _, err := strconv.ParseUint(string(v), 10, bits); err != nil {
			return fmt.Sprintf("should be an unsigned %d bit integer", bits)
		}
	case tMsat, tMsatOrAny:
		if p.kind == tMsatOrAny && isString && s == "any" {
			return ""
		}
		if isString && msatRE.MatchString(s) {
			return ""
		}
		if _, err := strconv.ParseUint(string(v), 10, 64); err != nil {
			return "should be a millisatoshi amount"
		}
	case tHex:
		if !isString || !hexRE.MatchString(s) {
			return "should be hex"
		}
	case tHash:
		if !isString || len(s) != 64 || !hexRE.MatchString(s) {
			return "should be a 32 byte hex value"
		}
	case tPubkey:
		if !isString || len(s) != 66 || !hexRE.MatchString(s) {
			return "should be a node id"
		}
	case tFeerate:
		if isString && (contains([]string{"slow", "normal", "urgent", "minimum", "opening", "mutual_close", "unilateral_close"}, s) || feerateRE.MatchString(s)) {
			return ""
		}
		if _, err := strconv.ParseUint(string(v), 10, 32); err != nil {
			return "should be a feerate"
		}
	case tArray:
		var a []json.RawMessage
		if json.Unmarshal(v, &a) != nil {
			return "should be an array"
		}
	case tLabel:
		if isString {
			return ""
		}
		if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
			return "should be a string or number"
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// msatValue reads an amount checkValue accepted.
func msatValue(v json.RawMessage) int64 {
	var s string
	if json.Unmarshal(v, &s) != nil {
		n, _ := strconv.ParseInt(string(v), 10, 64)
		return n
	}
	switch {
	case strings.HasSuffix(s, "msat"):
		n, _ := strconv.ParseInt(strings.TrimSuffix(s, "msat"), 10, 64)
		return n
	case strings.HasSuffix(s, "btc"):
		f, _ := strconv.ParseFloat(strings.TrimSuffix(s, "btc"), 64)
		return int64(f * 1e11)
	case strings.HasSuffix(s, "sat"):
		n, _ := strconv.ParseInt(strings.TrimSuffix(s, "sat"), 10, 64)
		return n * 1000
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
