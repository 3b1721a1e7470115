package nwc

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Keysend over NIP-47 (pay_keysend, multi_pay_keysend): a payment to a
// node by its key, the ledger's keysend (core/ledger/keysend.go), with
// the connection's delegation and the request's id as idempotency key,
// as pay_invoice's.

// keysendParams are one keysend's params.
type keysendParams struct {
	ID         string `json:"id"`
	Amount     int64  `json:"amount"`
	Pubkey     string `json:"pubkey"`
	Preimage   string `json:"preimage"`
	TLVRecords []struct {
		Type  uint64 `json:"type"`
		Value string `json:"value"`
	} `json:"tlv_records"`
}

func payKeysend(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in keysendParams
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	return []reply{c.keysend(ctx, in, c.eventID)}
}

func multiPayKeysend(ctx context.Context, c *call, params json.RawMessage) []reply {
	var in struct {
		Keysends []keysendParams `json:"keysends"`
	}
	if e := decodeParams(params, &in); e != nil {
		return one(nil, e)
	}
	if len(in.Keysends) == 0 || len(in.Keysends) > maxMultiPay {
		return one(nil, errorf(codeOther, "keysends must list 1 to %d keysends", maxMultiPay))
	}
	out := make([]reply, 0, len(in.Keysends))
	for i, k := range in.Keysends {
		d := k.ID
		if d == "" {
			d = k.Pubkey
		}
		if len(d) > 66 {
			d = d[:66]
		}
		r := c.keysend(ctx, k, c.eventID+":"+strconv.Itoa(i))
		r.d = d
		out = append(out, r)
	}
	return out
}

// keysend pays one keysend and answers its preimage and fee.
func (c *call) keysend(ctx context.Context, k keysendParams, key string) reply {
	if k.Pubkey == "" || k.Amount <= 0 {
		return reply{err: errorf(codeOther, "pubkey and a positive amount are required")}
	}
	req := ledger.PayRequest{Input: k.Pubkey, AmountMsat: &k.Amount, IdempotencyKey: "nwc:" + key, KeysendPreimage: k.Preimage}
	for _, r := range k.TLVRecords {
		v, err := hex.DecodeString(r.Value)
		if err != nil {
			return reply{err: errorf(codeOther, "tlv_records: the value of %d is not hex", r.Type)}
		}
		if req.TLVRecords == nil {
			req.TLVRecords = map[uint64][]byte{}
		}
		req.TLVRecords[r.Type] = v
	}
	p, err := c.c.Pay(ctx, req)
	if err != nil {
		return reply{err: payError(err)}
	}
	return c.outcome(ctx, p)
}
