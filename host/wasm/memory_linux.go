//go:build linux

package wasm

import (
	"sync"

	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// guestMemory is a guest's linear memory mapped outside the Go heap:
// reserved at its cap once (address space only: pages cost memory when
// touched), grown in place, unmapped with its instance. The Go heap never
// holds nor copies guest memory, so a plugin that fills its memory up to
// the cap gives the garbage collector, and so the payments, no work.
//
// The deadline closes an instance from the timer's goroutine while its
// guest may still run: the unmapping then waits for the call to return
// (busy/release), or the guest would touch unmapped memory.
type guestMemory struct {
	mu    sync.Mutex
	all   []byte // the mapping, len = cap
	busy  bool   // a call is running on the instance
	freed bool   // Free came while busy
}

// newAllocator returns an allocator that records the memory it makes in
// *mem, for the instance to mark its calls.
func newAllocator(mem **guestMemory) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		b, err := unix.Mmap(-1, 0, int(max), unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
		if err != nil {
			return &heapMemory{max: max}
		}
		g := &guestMemory{all: b}
		*mem = g
		return g
	})
}

// Reallocate grows the memory in place; nil beyond the cap.
func (g *guestMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(g.all)) {
		return nil
	}
	return g.all[:size:size]
}

// Free unmaps the memory, or lets the running call do it when it returns.
func (g *guestMemory) Free() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy {
		g.freed = true
		return
	}
	g.unmap()
}

// hold marks a call running on the instance.
func (g *guestMemory) hold() {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.busy = true
	g.mu.Unlock()
}

// release ends the call, and unmaps the memory if Free came meanwhile.
func (g *guestMemory) release() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy = false
	if g.freed {
		g.unmap()
	}
}

func (g *guestMemory) unmap() {
	if g.all != nil {
		unix.Munmap(g.all) //nolint:errcheck // nothing to do about it
		g.all = nil
	}
}
