// Package logtest collects what a component logs, for a test to wait on
// or look for a line.
package logtest

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// Buffer is an io.Writer that keeps every line written to it, safe for
// concurrent use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Logger is a text logger, at every level, that writes to b.
func (b *Buffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Has is nil once one line holds every one of parts (poll.Until waits on
// it).
func (b *Buffer) Has(parts ...string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for line := range strings.SplitSeq(b.buf.String(), "\n") {
		found := true
		for _, p := range parts {
			found = found && strings.Contains(line, p)
		}
		if found {
			return nil
		}
	}
	return errors.New(fmt.Sprint("no log line with ", parts))
}
