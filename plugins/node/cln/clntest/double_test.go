package clntest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/plugins/node/cln/clntest"
)

// raw sends one request as bytes and returns the answer's bytes up to and
// including the blank line that ends it.
func raw(t *testing.T, d *clntest.Node, req string) []byte {
	t.Helper()
	c, err := net.Dial("unix", d.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	var out []byte
	for !bytes.HasSuffix(out, []byte("}\n\n")) {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("reading the answer after %q: %v", out, err)
		}
		out = append(out, b)
	}
	return out
}

type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func call(t *testing.T, d *clntest.Node, req string) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal(raw(t, d, req), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// The double holds requests to the schemas as lightningd does, answers
// with the request's id, and records what it refused.
func TestSchemaChecks(t *testing.T) {
	d := clntest.Start(t)
	ok := call(t, d, `{"jsonrpc":"2.0","id":"hearth-7","method":"getinfo","params":{}}`)
	if ok.Error != nil || string(ok.ID) != `"hearth-7"` || !strings.Contains(string(ok.Result), `"network":"regtest"`) {
		t.Fatalf("getinfo = %+v", ok)
	}
	for _, c := range []struct{ req, code, msg string }{
		{`{"jsonrpc":"2.0","id":1,"method":"decodepay","params":{"bolt11":"lnbcrt1"}}`, "-32601", "Unknown command 'decodepay'"},
		{`{"jsonrpc":"2.0","id":2,"method":"invoice","params":{"amount_msat":1000,"label":"a","description":"d","exposeprivate":true}}`, "-32602", "unknown parameter: exposeprivate"},
		{`{"jsonrpc":"2.0","id":3,"method":"invoice","params":{"amount_msat":1000,"label":"a"}}`, "-32602", "missing required parameter: description"},
		{`{"jsonrpc":"2.0","id":4,"method":"invoice","params":{"amount_msat":"lots","label":"a","description":"d"}}`, "-32602", "amount_msat: should be a millisatoshi amount"},
		{`{"jsonrpc":"2.0","id":5,"method":"wait","params":{"subsystem":"invoices","indexname":"updated","nextvalue":-1}}`, "-32602", "nextvalue: should be an unsigned 64 bit integer"},
		{`{"jsonrpc":"2.0","id":6,"method":"xpay","params":{"invstring":"x","maxfee":"5%"}}`, "-32602", "maxfee: should be a millisatoshi amount"},
		{`{"jsonrpc":"2.0","id":7,"method":"listpays","params":{"payment_hash":"abcd"}}`, "-32602", "payment_hash: should be a 32 byte hex value"},
		{`{"jsonrpc":"2.0","id":8,"method":"invoice","params":{"amount_msat":1000,"label":"a","description":"d","deschashonly":"yes"}}`, "-32602", "deschashonly: should be 'true' or 'false'"},
	} {
		a := call(t, d, c.req)
		if a.Error == nil || !strings.HasPrefix(a.Error.Message, c.msg) || c.code != jsonNumber(a.Error.Code) {
			t.Errorf("%s: answered %+v %s, want %s %q", c.req, a.Error, a.Result, c.code, c.msg)
		}
	}
	if got := d.Rejected(); len(got) != 8 {
		t.Fatalf("rejected = %q", got)
	}
	// Positional params, as lightning-cli sends them, are checked too.
	a := call(t, d, `{"jsonrpc":"2.0","id":9,"method":"invoice","params":["any","positional","a description"]}`)
	if a.Error != nil || !strings.Contains(string(a.Result), `"bolt11":"lnbcrt1`) {
		t.Fatalf("positional invoice = %+v %s", a.Error, a.Result)
	}
	if a := call(t, d, `{"jsonrpc":"2.0","id":10,"method":"invoice","params":["any","positional","again"]}`); a.Error == nil || a.Error.Code != 900 {
		t.Fatalf("duplicate label = %+v", a.Error)
	}
}

func jsonNumber(n int) string { b, _ := json.Marshal(n); return string(b) }

// A call scripted to lose its connection gets no answer; the next one is
// answered. A killed node refuses connections until it restarts, with its
// invoices.
func TestCloseNextAndRestart(t *testing.T) {
	d := clntest.Start(t)
	a := call(t, d, `{"jsonrpc":"2.0","id":1,"method":"invoice","params":{"amount_msat":1000,"label":"kept","description":"d"}}`)
	if a.Error != nil {
		t.Fatal(a.Error)
	}
	d.CloseNext("getinfo")
	c, err := net.Dial("unix", d.Path())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"getinfo","params":{}}`))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("read %d bytes (%v) from a call that should have lost its connection", n, err)
	}
	c.Close()
	if a := call(t, d, `{"jsonrpc":"2.0","id":3,"method":"getinfo","params":{}}`); a.Error != nil {
		t.Fatal(a.Error)
	}
	d.Kill()
	if _, err := net.Dial("unix", d.Path()); err == nil {
		t.Fatal("a killed node accepted a connection")
	}
	if err := d.Restart(); err != nil {
		t.Fatal(err)
	}
	a = call(t, d, `{"jsonrpc":"2.0","id":4,"method":"listinvoices","params":{"label":"kept"}}`)
	if a.Error != nil || !strings.Contains(string(a.Result), `"label":"kept"`) {
		t.Fatalf("after the restart: %+v %s", a.Error, a.Result)
	}
}
