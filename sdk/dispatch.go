package sdk

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"
)

// result is what an export answers: empty for success without a body, or
// a JSON object.
type result struct {
	Error string `json:"error,omitempty"`
}

func errorResult(msg string) []byte {
	b, _ := json.Marshal(result{Error: msg})
	return b
}

// dispatchEvent runs the handler registered for the event in payload
// (see parseEvent); the record is decoded only when the handler asks
// (Event.Invoice/Payment).
func dispatchEvent(payload []byte) []byte {
	e, err := parseEvent(payload)
	if err != nil {
		return errorResult(err.Error())
	}
	fn := eventHandlers[e.Type]
	if e.Type == TimerEvent {
		fn = dispatchTimer
	}
	if fn == nil {
		return nil
	}
	if err := fn(e); err != nil {
		return errorResult(err.Error())
	}
	return nil
}

// dispatchHTTP runs the HTTP handler on the request in payload and returns
// the encoded response.
func dispatchHTTP(payload []byte) []byte {
	var r Request
	if err := json.Unmarshal(payload, &r); err != nil {
		return errorResult("decoding request: " + err.Error())
	}
	if httpHandler == nil {
		b, _ := json.Marshal(JSON(404, map[string]string{"error": "this plugin serves no routes"}))
		return b
	}
	resp := httpHandler(&r)
	if resp == nil {
		resp = &Response{Status: 204}
	}
	if resp.Status == 0 {
		resp.Status = 200
	}
	b, err := json.Marshal(resp)
	if err != nil {
		return errorResult("encoding response: " + err.Error())
	}
	return b
}

// eventHeader is the size of an event payload's fixed header: the lengths
// of the type, wallet id and id (one byte each), a zero byte, and the time
// in Unix nanoseconds (int64, little-endian); the three strings and the
// JSON record follow. A plugin reads it without scanning a byte: byte
// loops are slow inside the sandbox.
const eventHeader = 12

// parseEvent reads an event payload without copying or allocating.
func parseEvent(payload []byte) (Event, error) {
	if len(payload) < eventHeader || payload[3] != 0 {
		return Event{}, errors.New("event payload without its header")
	}
	a, b, c := int(payload[0]), int(payload[1]), int(payload[2])
	if len(payload) < eventHeader+a+b+c {
		return Event{}, errors.New("event payload shorter than its header says")
	}
	nanos := int64(binary.LittleEndian.Uint64(payload[4:12]))
	rest := payload[eventHeader:]
	return Event{
		Type:     internType(rest[:a]),
		walletID: rest[a : a+b],
		id:       rest[a+b : a+b+c],
		At:       time.Unix(0, nanos).UTC(),
		Data:     json.RawMessage(rest[a+b+c:]),
	}, nil
}

// internType returns the known event type names without allocating.
func internType(b []byte) string {
	for _, t := range [...]string{InvoiceSettled, PaymentSettled, PaymentFailed, TimerEvent} {
		if string(b) == t {
			return t
		}
	}
	return string(b)
}

// EncodeEvent writes an event as the host sends it; test doubles use it.
// Type, wallet id and id must be at most 255 bytes each.
func EncodeEvent(e Event) []byte {
	b := make([]byte, eventHeader, eventHeader+len(e.Type)+len(e.walletID)+len(e.id)+len(e.Data))
	b[0], b[1], b[2] = byte(len(e.Type)), byte(len(e.walletID)), byte(len(e.id))
	binary.LittleEndian.PutUint64(b[4:], uint64(e.At.UnixNano()))
	b = append(b, e.Type...)
	b = append(b, e.walletID...)
	b = append(b, e.id...)
	return append(b, e.Data...)
}
