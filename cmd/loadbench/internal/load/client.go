package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
)

// Conn is one client's keep-alive connection to the server. It writes
// each request as prepared bytes and reads the answer with net/http's
// parser: a load generator as light as wrk's, so that the CPU the clients
// share with the server on this machine goes mostly to the server.
type Conn struct {
	c net.Conn
	r *bufio.Reader
}

// Dial opens a connection to addr (host:port).
func Dial(addr string) (*Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	return &Conn{c: c, r: bufio.NewReader(c)}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Pay sends POST /v1/me/payments {input: bolt11} to host with key and
// reads the answer, which must say the payment settled.
func (c *Conn) Pay(host, key, bolt11 string) error {
	body := `{"input":"` + bolt11 + `"}`
	req := "POST /v1/me/payments HTTP/1.1\r\nHost: " + host + "\r\nApi-Key: " + key +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(c.c, req); err != nil {
		return fmt.Errorf("POST /v1/me/payments: %w", err)
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return fmt.Errorf("POST /v1/me/payments: reading the answer: %w", err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("POST /v1/me/payments: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST /v1/me/payments = %d: %s", resp.StatusCode, got)
	}
	if !bytes.Contains(got, []byte(`"status":"Settled"`)) {
		return errors.New("payment not settled: " + string(got))
	}
	return nil
}

// ReadStream opens the event stream url with the Authorization header
// authorization and hands each of its lines to each, in a goroutine of
// its own, until the stream or ctx ends.
func ReadStream(ctx context.Context, url, authorization string, each func(line []byte)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", authorization)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("opening the event stream: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return fmt.Errorf("opening the event stream: %s", resp.Status)
	}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20) // an event's data is one line
		for sc.Scan() {
			each(sc.Bytes())
		}
	}()
	return nil
}
