package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// op is one host function of the ABI: it decodes its JSON request, calls
// the Caller (which checks the grant) and returns what to encode.
type op func(ctx context.Context, c *Caller, req []byte) (any, error)

// v2Only are the host functions hearth_v2 added; a hearth_v1 module may
// not import them.
var v2Only = map[string]bool{"receive": true, "received_invoice": true, "metric": true,
	"send": true, "send_status": true, "rate": true}

func init() {
	// The host functions a service answers (abinames.go) join the table.
	for name, s := range abiServices {
		ops[name] = func(ctx context.Context, c *Caller, req []byte) (any, error) { return c.callService(ctx, s, req) }
		if s.v2 {
			v2Only[name] = true
		}
	}
}

// invoiceReq is the request of create_invoice and receive: an amount in
// msat, or in a currency (amount and currency, hearth_v2).
type invoiceReq struct {
	WalletID    string `json:"wallet_id"` // receive's
	AmountMsat  int64  `json:"amount_msat"`
	Amount      string `json:"amount"`
	Currency    string `json:"currency"`
	Description string `json:"description"`
	Expiry      int64  `json:"expiry"`
	Tag         string `json:"tag"`
}

func (in invoiceReq) toNew() ledger.NewInvoice {
	ni := ledger.NewInvoice{AmountMsat: in.AmountMsat}
	if in.Amount != "" || in.Currency != "" {
		ni.Fiat = &ledger.FiatAmount{Amount: in.Amount, Currency: in.Currency}
	}
	if in.Description != "" {
		ni.Description = &in.Description
	}
	if in.Expiry != 0 {
		ni.Expiry = &in.Expiry
	}
	if in.Tag != "" {
		ni.Tag = &ledger.Tag{Value: in.Tag}
	}
	return ni
}

// ops are the host functions of the ABIs, by import name.
var ops = map[string]op{
	"metric":      metricOp,
	"send":        sendOp,
	"send_status": sendStatusOp,
	"receive": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in invoiceReq
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		if in.WalletID == "" {
			return nil, callErrorf("invalid", "wallet_id is required")
		}
		return c.Receive(ctx, in.WalletID, in.toNew())
	},
	"received_invoice": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			WalletID string `json:"wallet_id"`
			ID       string `json:"id"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return c.ReceivedInvoice(ctx, in.WalletID, in.ID)
	},
	"rate": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Currency string `json:"currency"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return c.ExchangeRate(ctx, in.Currency)
	},
	"ping": func(ctx context.Context, c *Caller, _ []byte) (any, error) { return nil, c.Ping(ctx) },
	"wallet": func(ctx context.Context, c *Caller, _ []byte) (any, error) {
		return c.Wallet(ctx)
	},
	"create_invoice": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in invoiceReq
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		if in.WalletID != "" {
			return nil, callErrorf("invalid", "create_invoice makes invoices into the plugin's wallet: receive takes a wallet_id")
		}
		return c.CreateInvoice(ctx, in.toNew())
	},
	"pay": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Input          string `json:"input"`
			AmountMsat     int64  `json:"amount_msat"`
			IdempotencyKey string `json:"idempotency_key"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		pr := ledger.PayRequest{Input: in.Input, IdempotencyKey: in.IdempotencyKey}
		if in.AmountMsat != 0 {
			pr.AmountMsat = &in.AmountMsat
		}
		return c.Pay(ctx, pr)
	},
	"invoices": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		f, err := decodeFilter(req)
		if err != nil {
			return nil, err
		}
		return c.Invoices(ctx, f)
	},
	"payments": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		f, err := decodeFilter(req)
		if err != nil {
			return nil, err
		}
		return c.Payments(ctx, f)
	},
	"kv_get": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Key string `json:"key"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		v, found, err := c.KVGet(ctx, in.Key)
		if err != nil {
			return nil, err
		}
		return struct {
			Value []byte `json:"value,omitempty"`
			Found bool   `json:"found"`
		}{v, found}, nil
	},
	"kv_set": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Key   string `json:"key"`
			Value []byte `json:"value"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return nil, c.KVSet(ctx, in.Key, in.Value)
	},
	"kv_delete": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Key string `json:"key"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return nil, c.KVDelete(ctx, in.Key)
	},
	"kv_list": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Prefix string `json:"prefix"`
			After  string `json:"after"`
			Limit  int    `json:"limit"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return c.KVList(ctx, in.Prefix, in.After, in.Limit)
	},
	"http": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in OutboundRequest
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return c.HTTP(ctx, in)
	},
	"log": func(ctx context.Context, c *Caller, req []byte) (any, error) {
		var in struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
		}
		if err := decodeReq(req, &in); err != nil {
			return nil, err
		}
		return nil, c.Log(ctx, in.Level, in.Msg)
	},
	"config": func(ctx context.Context, c *Caller, _ []byte) (any, error) {
		b, err := c.Config(ctx)
		return json.RawMessage(b), err
	},
}

// Ops returns the names of the host functions.
func Ops() []string { return sortedKeys(ops) }

// OpsOf lists the host functions of ABI abi (an import module's name);
// none for an ABI this host does not speak.
func OpsOf(abi string) []string {
	var out []string
	for _, name := range Ops() {
		switch abi {
		case ABIVersion:
			out = append(out, name)
		case ABIv1:
			if !v2Only[name] {
				out = append(out, name)
			}
		}
	}
	return out
}

// Dispatch runs host function name for plugin p on the JSON request and
// returns the JSON answer, or a *CallError for the plugin. An unknown name
// is a *CallError too (the runtime only registers known names).
func (a *API) Dispatch(ctx context.Context, p *Plugin, name string, req []byte) ([]byte, *CallError) {
	fn, ok := ops[name]
	if !ok {
		return nil, callErrorf("abi", "no host function %q", name)
	}
	c := a.For(p).ActFor(actingFor(ctx))
	v, err := fn(ctx, c, req)
	if err != nil {
		return nil, a.toCallError(ctx, p, name, err)
	}
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, a.toCallError(ctx, p, name, fmt.Errorf("encoding answer: %w", err))
	}
	return b, nil
}

// maxRequest bounds a host call's JSON request.
const maxRequest = 1 << 20

// decodeReq decodes a plugin's request strictly: garbage is refused with an
// "invalid" error the plugin sees.
// DecodeRequest decodes a host function's JSON request into v as the
// ABI's own functions do: unknown fields, oversize and trailing data are
// a *CallError "invalid". A service's JSON face (Service.Call) uses it.
func DecodeRequest(req []byte, v any) error { return decodeReq(req, v) }

func decodeReq(req []byte, v any) error {
	if len(req) > maxRequest {
		return callErrorf("invalid", "request larger than %d bytes", maxRequest)
	}
	dec := json.NewDecoder(bytes.NewReader(req))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return callErrorf("invalid", "malformed request: %v", err)
	}
	if dec.More() {
		return callErrorf("invalid", "malformed request: data after the object")
	}
	return nil
}

func decodeFilter(req []byte) (ledger.Filter, error) {
	var in struct {
		Status string `json:"status"`
		Limit  int    `json:"limit"`
		Offset int    `json:"offset"`
	}
	if len(req) > 0 {
		if err := decodeReq(req, &in); err != nil {
			return ledger.Filter{}, err
		}
	}
	if in.Limit <= 0 || in.Limit > 1000 {
		in.Limit = 100
	}
	if in.Offset < 0 {
		in.Offset = 0
	}
	return ledger.Filter{Status: in.Status, Page: store.Page{Limit: in.Limit, Offset: in.Offset}}, nil
}
