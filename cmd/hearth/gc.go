package main

import (
	"runtime/debug"
	"strings"
)

// defaultGCPercent is the garbage collector's target when the operator has
// not set GOGC: the heap may grow to three times what is live before a
// collection, instead of Go's twice. Hearth's live heap is tens of MB (the
// plugins' compiled WebAssembly, caches, connections), so this costs little
// memory, and it halves the collections, each of which slows the payments
// in flight (mark assists, write barriers). The same build with it against
// without it (`loadbench -ab . -ab-b . -ab-b-env GOGC=200`, PostgreSQL):
// p99 flat out 0.86×, at 100/s 0.79× (docs/performance.md, 2026-11-27,
// sixth session).
const defaultGCPercent = 200

// tuneGC sets the collector's target to defaultGCPercent unless environ
// sets GOGC, which the runtime has then applied.
func tuneGC(environ []string) {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GOGC=") {
			return
		}
	}
	debug.SetGCPercent(defaultGCPercent)
}
