package main

import (
	"runtime/debug"
	"strings"
)

// defaultGCPercent is the garbage collector's target when the operator has
// not set GOGC: the heap may grow to three times what is live before a
// collection, instead of Go's twice. Hearth's live heap is tens of MB (the
// plugins' compiled WebAssembly, caches, connections), so this costs little
// memory, and it halves the collections: each one slows the payments in
// flight (mark assists, write barriers), which was most of the difference
// in p99 in `loadbench -ab . -ab-b . -ab-b-env GOGC=200` (docs/performance.md,
// 2026-11-27, sixth session).
const defaultGCPercent = 200

// tuneGC sets the collector's target to defaultGCPercent unless environ
// sets GOGC, which the runtime has then applied; it returns the target in
// force.
func tuneGC(environ []string) int {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GOGC=") {
			prev := debug.SetGCPercent(100)
			debug.SetGCPercent(prev)
			return prev
		}
	}
	debug.SetGCPercent(defaultGCPercent)
	return defaultGCPercent
}
