package load

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
)

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
