//go:build wasip1

package sdk

import (
	"encoding/json"
	"runtime"
	"unsafe"
)

// The host functions of ABI hearth_v2. Each takes the request (JSON) at
// reqPtr/reqLen and an output buffer outPtr/outCap, and returns r: r >= 0
// is success with an r-byte answer, r < 0 a refusal whose *Error JSON has
// -r-1 bytes. An answer longer than outCap is fetched with take.

//go:wasmimport hearth_v2 ping
func hostPing(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 wallet
func hostWallet(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 create_invoice
func hostCreateInvoice(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 pay
func hostPay(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 ln_address
func hostLnAddress(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 invoices
func hostInvoices(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 payments
func hostPayments(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 kv_get
func hostKVGet(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 kv_set
func hostKVSet(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 kv_delete
func hostKVDelete(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 kv_list
func hostKVList(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 http
func hostHTTP(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 log
func hostLog(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 config
func hostConfig(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 receive
func hostReceive(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 received_invoice
func hostReceivedInvoice(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 nostr_sign
func hostNostrSign(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 delegate
func hostDelegate(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 delegation
func hostDelegation(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 revoke_delegation
func hostRevokeDelegation(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 act_as
func hostActAs(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 create_wallet
func hostCreateWallet(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 metric
func hostMetric(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 send
func hostSend(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 send_status
func hostSendStatus(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 emit
func hostEmit(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 rate
func hostRate(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 create_hold_invoice
func hostCreateHold(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 settle_hold_invoice
func hostSettleHold(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 cancel_hold_invoice
func hostCancelHold(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 keysend_address
func hostKeysendAddress(reqPtr, reqLen, outPtr, outCap uint32) int64

//go:wasmimport hearth_v2 take
func hostTake(outPtr, outLen uint32) int32

var hostFuncs = map[string]func(reqPtr, reqLen, outPtr, outCap uint32) int64{
	opPing: hostPing, opWallet: hostWallet, opCreateInv: hostCreateInvoice, opPay: hostPay,
	opLnAddress: hostLnAddress, opInvoices: hostInvoices, opPayments: hostPayments,
	opKVGet: hostKVGet, opKVSet: hostKVSet, opKVDelete: hostKVDelete, opKVList: hostKVList,
	opHTTP: hostHTTP, opLog: hostLog, opConfig: hostConfig,
	opReceive: hostReceive, opReceivedInv: hostReceivedInvoice, opNostrSign: hostNostrSign,
	opDelegate: hostDelegate, opDelegation: hostDelegation, opRevokeDeleg: hostRevokeDelegation, opActAs: hostActAs,
	opCreateWallet: hostCreateWallet, opMetric: hostMetric,
	opSend: hostSend, opSendStatus: hostSendStatus, opEmit: hostEmit, opRate: hostRate,
	opCreateHold: hostCreateHold, opSettleHold: hostSettleHold, opCancelHold: hostCancelHold,
	opKeysendAddr: hostKeysendAddress,
}

var (
	outBuf    = make([]byte, 16<<10) // answers of host calls
	inBuf     = make([]byte, 16<<10) // payloads the host writes before an export call
	resultBuf []byte                 // the last export's answer, alive until the next call
)

func ptr(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&b[0])))
}

func hostCall(op string, req []byte) ([]byte, error) {
	fn := hostFuncs[op]
	r := fn(ptr(req), uint32(len(req)), ptr(outBuf), uint32(len(outBuf)))
	runtime.KeepAlive(req)
	n := r
	if r < 0 {
		n = -r - 1
	}
	var out []byte
	if n <= int64(len(outBuf)) {
		out = append([]byte(nil), outBuf[:n]...)
	} else {
		out = make([]byte, n)
		if hostTake(ptr(out), uint32(n)) != 0 {
			return nil, &Error{Code: "abi", Message: "host lost the answer"}
		}
	}
	if r >= 0 {
		return out, nil
	}
	e := new(Error)
	if err := json.Unmarshal(out, e); err != nil {
		return nil, &Error{Code: "abi", Message: "undecodable refusal from the host"}
	}
	return nil, e
}

// hearthAlloc returns a buffer of at least size bytes for the host to write
// the next export's payload into.
//
//go:wasmexport hearth_alloc
func hearthAlloc(size uint32) uint32 {
	if int(size) > cap(inBuf) {
		inBuf = make([]byte, size)
	}
	return ptr(inBuf[:cap(inBuf)])
}

// hearthEvent delivers an event; the answer is packed as ptr<<32 | len.
//
//go:wasmexport hearth_event
func hearthEvent(_, n uint32) uint64 {
	if int(n) > cap(inBuf) {
		return pack(errorResult("payload larger than the allocated buffer"))
	}
	return pack(dispatchEvent(inBuf[:n]))
}

// hearthHTTP serves a request to one of the plugin's routes.
//
//go:wasmexport hearth_http
func hearthHTTP(_, n uint32) uint64 {
	if int(n) > cap(inBuf) {
		return pack(errorResult("payload larger than the allocated buffer"))
	}
	return pack(dispatchHTTP(inBuf[:n]))
}

func pack(b []byte) uint64 {
	resultBuf = b
	if len(b) == 0 {
		return 0
	}
	return uint64(ptr(b))<<32 | uint64(len(b))
}
