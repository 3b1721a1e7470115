package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
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

// dispatchEvent runs the handler registered for the event in payload:
// a header line "type wallet_id id unix_nanos" and then the JSON record,
// which is decoded only when the handler asks (Event.Invoice/Payment).
func dispatchEvent(payload []byte) []byte {
	e, err := parseEvent(payload)
	if err != nil {
		return errorResult(err.Error())
	}
	fn := eventHandlers[e.Type]
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

// parseEvent reads an event payload without reflection.
func parseEvent(payload []byte) (Event, error) {
	nl := bytes.IndexByte(payload, '\n')
	if nl < 0 {
		return Event{}, errors.New("event payload without a header line")
	}
	var f [4][]byte
	head := payload[:nl]
	for i := range 3 {
		sp := bytes.IndexByte(head, ' ')
		if sp < 0 {
			return Event{}, errors.New("event header has fewer than 4 fields")
		}
		f[i], head = head[:sp], head[sp+1:]
	}
	f[3] = head
	nanos, err := parseInt(f[3])
	if err != nil {
		return Event{}, errors.New("event header: bad time")
	}
	return Event{
		Type:     internType(f[0]),
		WalletID: string(f[1]),
		ID:       string(f[2]),
		At:       time.Unix(0, nanos).UTC(),
		Data:     json.RawMessage(payload[nl+1:]),
	}, nil
}

// internType returns the known event type names without allocating.
func internType(b []byte) string {
	for _, t := range [...]string{InvoiceSettled, PaymentSettled, PaymentFailed} {
		if string(b) == t {
			return t
		}
	}
	return string(b)
}

// EncodeEvent writes an event as the host sends it; the host and test
// doubles use it.
func EncodeEvent(e Event) []byte {
	b := make([]byte, 0, len(e.Type)+len(e.WalletID)+len(e.ID)+24+len(e.Data))
	b = append(b, e.Type...)
	b = append(b, ' ')
	b = append(b, e.WalletID...)
	b = append(b, ' ')
	b = append(b, e.ID...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, e.At.UnixNano(), 10)
	b = append(b, '\n')
	return append(b, e.Data...)
}

func parseInt(b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 19 {
		return 0, errors.New("bad number")
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errors.New("bad number")
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}
