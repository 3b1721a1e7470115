package clntest

import (
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
)

// lightningd's datastore: values by a key of string parts, kept across
// restarts (datastore, listdatastore, deldatastore), with the error codes
// of lightningd's datastore.

// The datastore's error codes.
const (
	codeDatastoreDelNoKey  = 1200
	codeDatastoreExists    = 1202
	codeDatastoreNoKey     = 1203
	codeDatastoreBadParams = 1205
)

// datum is one value of the datastore.
type datum struct {
	key        []string
	value      string
	generation uint64
}

func (d *datum) answer() map[string]any {
	return map[string]any{"key": d.key, "generation": d.generation, "string": d.value, "hex": hex.EncodeToString([]byte(d.value))}
}

func storeKey(a args) ([]string, string, error) {
	var key []string
	if err := json.Unmarshal(a["key"], &key); err != nil || len(key) == 0 {
		return nil, "", invalidParams("key: should be an array of strings")
	}
	return key, strings.Join(key, "/"), nil
}

func (n *Node) datastore(a args) (any, error) {
	key, k, err := storeKey(a)
	if err != nil {
		return nil, err
	}
	if a.has("string") == a.has("hex") {
		return nil, &rpcError{Code: codeDatastoreBadParams, Message: "Must have either hex or string"}
	}
	value := a.str("string")
	if a.has("hex") {
		b, _ := hex.DecodeString(a.str("hex"))
		value = string(b)
	}
	if n.store == nil {
		n.store = map[string]*datum{}
	}
	d, exists := n.store[k]
	mode := a.str("mode")
	if mode == "" {
		mode = "must-create"
	}
	switch {
	case exists && mode == "must-create":
		return nil, &rpcError{Code: codeDatastoreExists, Message: "Key already exists"}
	case !exists && (mode == "must-replace" || mode == "must-append"):
		return nil, &rpcError{Code: codeDatastoreNoKey, Message: "Key does not exist"}
	case !exists:
		d = &datum{key: key}
		n.store[k] = d
	default:
		d.generation++
	}
	if strings.HasSuffix(mode, "append") {
		d.value += value
	} else {
		d.value = value
	}
	return d.answer(), nil
}

func (n *Node) listdatastore(a args) (any, error) {
	prefix := ""
	if a.has("key") {
		_, k, err := storeKey(a)
		if err != nil {
			return nil, err
		}
		prefix = k
	}
	out := []any{}
	keys := make([]string, 0, len(n.store))
	for k := range n.store {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if prefix == "" || k == prefix || strings.HasPrefix(k, prefix+"/") {
			out = append(out, n.store[k].answer())
		}
	}
	return map[string]any{"datastore": out}, nil
}

func (n *Node) deldatastore(a args) (any, error) {
	_, k, err := storeKey(a)
	if err != nil {
		return nil, err
	}
	d, ok := n.store[k]
	if !ok {
		return nil, &rpcError{Code: codeDatastoreDelNoKey, Message: "Key does not exist"}
	}
	delete(n.store, k)
	return d.answer(), nil
}
