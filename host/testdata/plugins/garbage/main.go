// Command garbage is a test plugin that speaks the ABI wrongly, without the
// SDK: its event export hands the host a pointer outside its memory, and
// its HTTP export answers with one.
package main

import "unsafe"

//go:wasmimport hearth_v1 ping
func hostPing(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v1 take
func hostTake(outPtr, outLen uint32) int32

var buf = make([]byte, 1024)

// alloc gives its buffer for small payloads and a pointer outside memory
// for large ones.
//
//go:wasmexport hearth_alloc
func alloc(size uint32) uint32 {
	if size <= uint32(len(buf)) {
		return uint32(uintptr(unsafe.Pointer(&buf[0])))
	}
	return 0xFFFFFF00
}

//go:wasmexport hearth_event
func event(ptr, n uint32) uint64 {
	hostPing(0xFFFFFFF0, 1000, 0xFFFFFFF0, 1000)
	return 0
}

//go:wasmexport hearth_http
func serve(ptr, n uint32) uint64 {
	if n == 7 {
		hostTake(16, 99) // take with nothing pending
	}
	return 0xFFFFFFF0_00001000 // an answer outside memory
}

func main() {}
