// Command abiv1 is a plugin of the first ABI, hearth_v1, written without
// the SDK (which speaks hearth_v2): it imports hearth_v1's functions, and
// its HTTP handler calls wallet through them and answers what it got:
// the request it was given (to show it carries no caller) and the
// host's answer.
package main

import (
	"encoding/json"
	"unsafe"
)

//go:wasmimport hearth_v1 wallet
func hostWallet(reqPtr, reqLen, outPtr, outCap uint32) int64

var (
	in     = make([]byte, 64<<10)
	out    = make([]byte, 64<<10)
	result []byte
)

func ptr(b []byte) uint32 { return uint32(uintptr(unsafe.Pointer(&b[0]))) }

//go:wasmexport hearth_alloc
func alloc(size uint32) uint32 {
	if int(size) > len(in) {
		in = make([]byte, size)
	}
	return ptr(in)
}

//go:wasmexport hearth_event
func event(_, _ uint32) uint64 { return 0 }

//go:wasmexport hearth_http
func serve(_, n uint32) uint64 {
	r := hostWallet(0, 0, ptr(out), uint32(len(out)))
	answer := "refused"
	if r >= 0 {
		answer = string(out[:r])
	}
	body, _ := json.Marshal(map[string]string{"request": string(in[:n]), "wallet": answer})
	result, _ = json.Marshal(map[string]any{"status": 200, "body": body})
	return uint64(ptr(result))<<32 | uint64(len(result))
}

func main() {}
