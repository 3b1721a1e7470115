//go:build !linux

package wasm

import "github.com/tetratelabs/wazero/experimental"

// guestMemory outside Linux is wazero's own, on the Go heap.
type guestMemory struct{}

// newAllocator returns nil: wazero's default allocator.
func newAllocator(**guestMemory) experimental.MemoryAllocator { return nil }

func (*guestMemory) hold()    {}
func (*guestMemory) release() {}
