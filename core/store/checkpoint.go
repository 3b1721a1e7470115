package store

import (
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// checkpointEvery is how often the WAL is copied into the database file.
const checkpointEvery = 100 * time.Millisecond

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
