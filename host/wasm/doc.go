// Package wasm runs WebAssembly plugins in wazero sandboxes: compiled once
// (with an on-disk compilation cache), a bounded pool of warm instances per
// plugin, one instance per call, no filesystem, environment or network
// beyond the host functions of ABI hearth_v1, a memory cap and a per-call
// deadline that stops the guest. An instance that timed out, trapped,
// exited or broke the ABI is discarded, never pooled. See ../abi.md.
//
// Plugins never compete with payments for the CPU: guest code runs only on
// OS threads of the lowest priority (SCHED_IDLE and nice 19 on Linux), each
// a goroutine locked to its thread for good: a plugin's event worker
// (Runtime.Pin, so an event costs no hand-off) or one of a small executor's
// threads (HTTP routes, some 15–30 µs more per call). Go's scheduler has no
// priorities; the kernel's has, so it runs plugin code only on CPU time
// that payments leave idle. A call's deadline therefore counts the CPU time
// of its thread (bounded at ten times the timeout in wall time), so that a
// plugin the kernel keeps waiting is not failed for the server's load. Since a thread running guest code holds a Go P even while the
// kernel keeps it waiting, New raises GOMAXPROCS by MaxRunning (by default
// the CPUs Go would use) unless the GOMAXPROCS environment variable is set.
// Host calls that take locks payments want too (the database, the server
// log) run on an ordinary goroutine, against priority inversion; ping and
// config run in place. A guest's linear memory is mapped outside the Go
// heap (mmap, reserved at its cap and grown in place), so a plugin filling
// its memory gives the garbage collector no work. See thread.go.
package wasm
