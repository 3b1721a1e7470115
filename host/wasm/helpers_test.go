package wasm_test

import (
	"crypto/sha256"
	"runtime"
)

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
