package main

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sseIDs reads the ids of the invoice.settled events of the admin's stream
// of c, resumed after last, until it has n of them.
func sseIDs(t *testing.T, c *client, token string, last int64, n int) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ids []int64
	var id int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for len(ids) < n && sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		switch k {
		case "id":
			id, _ = strconv.ParseInt(v, 10, 64)
		case "event":
			if v == "invoice.settled" {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) < n {
		t.Fatalf("the stream gave %v (%v), want %d events", ids, sc.Err(), n)
	}
	return ids
}

// fundAdmin settles an invoice of the admin's wallet, paid by the embedded
// node as an outside payer.
func fundAdmin(c *client, token string) {
	var inv struct {
		LnInvoice struct {
			Bolt11 string `json:"bolt11"`
		} `json:"ln_invoice"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/invoices", `{"amount_msat":5000}`, token), 201), &inv)
	c.expect(c.call("POST", "/v1/lightning-node/pay", `{"bolt11":"`+inv.LnInvoice.Bolt11+`"}`, token), 204)
}

// A server killed with SIGKILL after settlements, then started again:
// a stream client that had dealt with the first event only resumes with
// its Last-Event-ID and gets every later event once, in order, those
// settled after the restart included.
func TestKilledServerStreamResumes(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		first, c := serveProcess(t, environ)
		var tok struct {
			Token string `json:"token"`
		}
		c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
		for range 3 {
			fundAdmin(c, tok.Token)
		}
		before := sseIDs(t, c, tok.Token, 0, 3)
		first.kill()

		_, c2 := serveProcess(t, environ)
		c2.decode(c2.expect(c2.call("POST", "/v1/auth/sign-in", `{"password":"correct horse battery"}`, ""), 200), &tok)
		for range 2 {
			fundAdmin(c2, tok.Token)
		}
		after := sseIDs(t, c2, tok.Token, before[0], 4)
		if after[0] != before[1] || after[1] != before[2] || after[2] <= before[2] || after[3] <= after[2] {
			t.Fatalf("resumed after %d: %v; before the kill: %v", before[0], after, before)
		}
	})
}
