// Package wasm runs WebAssembly plugins in wazero sandboxes: compiled once
// (with an on-disk compilation cache), a bounded pool of warm instances per
// plugin, one instance per call, no filesystem, environment or network
// beyond the host functions of ABI hearth_v1, a memory cap and a per-call
// deadline that closes the instance. An instance that timed out, trapped,
// exited or broke the ABI is discarded, never pooled. See ../abi.md.
package wasm
