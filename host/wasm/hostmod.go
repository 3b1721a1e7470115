package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/hearthwallet/hearth/host"
)

// callState is one export call's state that host functions share: an answer
// too long for the guest's buffer waits here for take.
type callState struct {
	pending []byte
	// parent and deadline make the context host functions run with: the
	// caller's, bounded by the call's deadline. It is made on the first
	// host call only, so that a call that makes none costs no timer.
	parent   context.Context
	deadline time.Time
	ctx      context.Context
	cancel   context.CancelFunc
}

// context returns the call's context for host functions.
func (st *callState) context() context.Context {
	if st.ctx == nil {
		st.ctx, st.cancel = context.WithDeadline(st.parent, st.deadline)
	}
	return st.ctx
}

// end releases the call's context.
func (st *callState) end() {
	if st.cancel != nil {
		st.cancel()
	}
	st.parent, st.ctx, st.cancel, st.pending = nil, nil, nil, nil
}

type stateKey struct{}

// abiError aborts the guest's call: it broke the ABI (a pointer or length
// outside its memory, take without a pending answer). The instance is
// discarded and the plugin charged a fault.
type abiError struct{ msg string }

func (e abiError) Error() string { return "ABI violation: " + e.msg }

var i32x4 = []api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32}

// instantiateHost defines the host module of each ABI in r (hearth_v1,
// hearth_v2), its functions bound to p: a module imports the one it was
// built for.
func (rt *Runtime) instantiateHost(ctx context.Context, r wazero.Runtime, p *host.Plugin) error {
	for _, abi := range host.ABIVersions {
		b := r.NewHostModuleBuilder(abi)
		for _, name := range host.OpsOf(abi) {
			b.NewFunctionBuilder().
				WithGoModuleFunction(rt.hostFunc(p, name), i32x4, []api.ValueType{api.ValueTypeI64}).
				Export(name)
		}
		b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(take), []api.ValueType{api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
			Export("take")
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("instantiating %s: %w", abi, err)
		}
	}
	return nil
}

// inPlace are the host functions that touch only the plugin's own state in
// memory: they run on the guest's thread. The others take locks that
// payments want too (database connections, the SQLite writer, the server
// log), so they run on an ordinary goroutine: on a thread of the lowest
// priority, a host call holding such a lock could be kept off the CPU by
// the very payments that wait for it (priority inversion). The hand-off
// costs some microseconds, little beside a database call.
var inPlace = map[string]bool{"ping": true, "config": true}

// hostFunc is host function name: (reqPtr, reqLen, outPtr, outCap) -> r.
// r >= 0: success, an r-byte answer; r < 0: refusal, a (-r-1)-byte error.
// The answer is written at outPtr when it fits in outCap, else kept for take.
func (rt *Runtime) hostFunc(p *host.Plugin, name string) api.GoModuleFunc {
	dispatch := rt.opts.Calls.Dispatch
	if !inPlace[name] {
		dispatch = rt.dispatchAway
	}
	return func(ctx context.Context, m api.Module, stack []uint64) {
		reqPtr, reqLen := uint32(stack[0]), uint32(stack[1])
		outPtr, outCap := uint32(stack[2]), uint32(stack[3])
		mem := m.Memory()
		var req []byte
		if reqLen > 0 {
			var ok bool
			if req, ok = mem.Read(reqPtr, reqLen); !ok {
				panic(abiError{fmt.Sprintf("%s: request %d+%d outside memory", name, reqPtr, reqLen)})
			}
		}
		st, _ := ctx.Value(stateKey{}).(*callState)
		if st != nil && st.parent != nil {
			ctx = st.context()
		}
		var out []byte
		var cerr *host.CallError
		if name == "log" {
			cerr = host.AdmitLog(p)
		}
		if cerr == nil {
			out, cerr = dispatch(ctx, p, name, req)
		}
		failed := cerr != nil
		if failed {
			out, _ = json.Marshal(cerr)
		}
		n := int64(len(out))
		if n > 0 {
			if uint32(n) <= outCap {
				if !mem.Write(outPtr, out) {
					panic(abiError{fmt.Sprintf("%s: answer buffer %d+%d outside memory", name, outPtr, outCap)})
				}
			} else if st != nil {
				st.pending = out
			}
		}
		if failed {
			n = -n - 1
		}
		stack[0] = uint64(n)
	}
}

// dispatchAway runs a host call on a new goroutine of ordinary priority
// and waits for it; a panic there is raised again here, where wazero turns
// it into the guest call's error.
func (rt *Runtime) dispatchAway(ctx context.Context, p *host.Plugin, name string, req []byte) (out []byte, cerr *host.CallError) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		out, cerr = rt.opts.Calls.Dispatch(ctx, p, name, req)
	}()
	if v := <-done; v != nil {
		panic(v)
	}
	return out, cerr
}

// take (outPtr, outLen) -> 0 copies the pending answer, which must be
// exactly outLen bytes, to outPtr.
func take(ctx context.Context, m api.Module, stack []uint64) {
	st, _ := ctx.Value(stateKey{}).(*callState)
	outPtr, outLen := uint32(stack[0]), uint32(stack[1])
	if st == nil || st.pending == nil || uint32(len(st.pending)) != outLen {
		panic(abiError{"take without a pending answer of that length"})
	}
	if !m.Memory().Write(outPtr, st.pending) {
		panic(abiError{fmt.Sprintf("take: buffer %d+%d outside memory", outPtr, outLen)})
	}
	st.pending = nil
	stack[0] = 0
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
