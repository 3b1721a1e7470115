package wasm

// heapMemory is a guest's linear memory on the Go heap, as wazero makes it
// by default: the fallback where memory cannot be mapped.
type heapMemory struct {
	max uint64
	buf []byte
}

// Reallocate grows the memory, copying it when it outgrows its capacity.
func (h *heapMemory) Reallocate(size uint64) []byte {
	if size > h.max {
		return nil
	}
	if size > uint64(cap(h.buf)) {
		b := make([]byte, size, min(max(size, 2*uint64(cap(h.buf))), h.max))
		copy(b, h.buf)
		h.buf = b
	}
	h.buf = h.buf[:size]
	return h.buf
}

// Free drops the memory to the garbage collector.
func (h *heapMemory) Free() { h.buf = nil }
