package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// Parallel runs do(0..n-1) from eight goroutines and returns the first
// error; after it the rest are skipped.
func (l *Load) Parallel(n int, do func(int) error) error {
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		first atomic.Pointer[error]
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(i); err != nil {
					first.CompareAndSwap(nil, &err)
				}
			}
		}()
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		return *p
	}
	return nil
}

// Call sends a JSON request with credential (a "Bearer …" token, an API
// key, or "" for none) and decodes a 2xx answer into out, unless out is
// nil.
func (l *Load) Call(ctx context.Context, method, path, credential string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.srv.Base()+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	switch {
	case strings.HasPrefix(credential, "Bearer "):
		req.Header.Set("Authorization", credential)
	case credential != "":
		req.Header.Set("Api-Key", credential)
	}
	resp, err := l.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s = %d: %s", method, path, resp.StatusCode, got)
	}
	if out != nil {
		if err := json.Unmarshal(got, out); err != nil {
			return fmt.Errorf("%s %s: decoding %s: %w", method, path, got, err)
		}
	}
	return nil
}

// Get reads path with credential (a "Bearer …" token or an API key) to its
// end and returns the answer's header; an answer other than 200 is an
// error.
func (l *Load) Get(ctx context.Context, path, credential string) (http.Header, error) {
	return l.GetJSON(ctx, path, credential, nil)
}

// GetJSON is Get that decodes the answer into out, unless out is nil.
func (l *Load) GetJSON(ctx context.Context, path, credential string, out any) (http.Header, error) {
	return l.CallJSON(ctx, "GET", path, credential, nil, http.StatusOK, out)
}

// CallJSON sends body (JSON unless nil) to path and decodes the answer,
// which must have status want, into out unless out is nil; it returns the
// answer's header.
func (l *Load) CallJSON(ctx context.Context, method, path, credential string, body any, want int, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.srv.Base()+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(credential) > 7 && credential[:7] == "Bearer " {
		req.Header.Set("Authorization", credential)
	} else {
		req.Header.Set("Api-Key", credential)
	}
	resp, err := l.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s = %d: %s", method, path, resp.StatusCode, answer)
	}
	if out != nil {
		if err := json.Unmarshal(answer, out); err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return resp.Header, nil
}
