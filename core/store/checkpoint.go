package store

import (
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// checkpointEvery is how often the WAL is copied into the database file.
// Each checkpoint syncs the WAL and the database file, on the disk the
// writer syncs its commits to: every 100 ms, those syncs slowed the
// commits enough to cost a fifth of the payments (6,670–8,633/s, p99
// 15.9–21.5 ms in six runs of cmd/loadbench, against 8,520–9,366/s and
// 12.7–18.6 ms every 500 ms). The WAL then grows to what half a second of
// writes makes (some 50 MB flat out) before it is copied and reused.
const checkpointEvery = 500 * time.Millisecond

// checkpointer copies SQLite's write-ahead log into the database file in
// the background. SQLite's own automatic checkpoint runs inside the commit
// that crosses its threshold, so that one payment waits for the copy and an
// fsync: at thousands of payments a second that is the slowest percent of
// them. The writer has it switched off (wal_autocheckpoint(0)); this
// goroutine runs PASSIVE checkpoints on a connection of its own, which never
// wait for, nor block, the writer or the readers.
type checkpointer struct {
	conn *sql.DB
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(dsn string) (*checkpointer, error) {
	conn, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening sqlite checkpointer: %w", err)
	}
	conn.SetMaxOpenConns(1)
	c := &checkpointer{conn: conn, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.done)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		var busy, frames, copied int
		err := c.conn.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
		if err != nil {
			slog.Warn("checkpointing the SQLite WAL", "err", err)
		}
	}
}

// close stops the checkpoints; closing the last connection to the database
// checkpoints what is left.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.conn.Close()
}
