// Package backup writes and restores Hearth's backups: one tar.gz archive
// holding a transactionally consistent copy of the database (SQLite's
// VACUUM INTO, or pg_dump of PostgreSQL), the node's files that a backup
// of the node needs (lnd's static channel backup, Core Lightning's
// emergency.recover) and manifest.json, which lists every other file with
// its size and SHA-256 and records the backup's point: the outbox head and
// the wallets' balances, read in the very snapshot the copy is of. A
// restore checks every checksum before it writes anything, goes only into
// an empty data directory and database unless forced, and checks the
// restored database against the recorded point.
//
// The instance's secrets are rows of its database: the token signing
// secret and the embedded node's key (settings), the Nostr plugin's key
// (nostr_keys). They travel inside the database copy; Hearth keeps no
// secret in a file of its own.
package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// Format names the archive's kind in its manifest, and FormatVersion its
// layout: a restore refuses a later one.
const (
	Format        = "hearth-backup"
	FormatVersion = 2
	manifestName  = "manifest.json"
	// formatWhole is the version of an archive whose database is one file
	// (every SQLite backup): what Hearth wrote before version 2, which
	// splits PostgreSQL's large tables (Database.Tables).
	formatWhole = 1
)

// The database's name in the archive, by kind.
const (
	sqliteName   = "database.sqlite"
	postgresName = "database.pgdump"
)

// Secrets says where the instance's secrets are, in every manifest: the
// token signing secret and the embedded node's key are rows of settings,
// the Nostr plugin's key a row of its table nostr_keys.
const Secrets = "in the database copy: the token signing secret and the embedded node's key " +
	"(table settings: jwt_secret, embedded_node_key), the plugins' keys (their own tables)"

// Manifest describes an archive: the first file in it.
type Manifest struct {
	Format        string    `json:"format"`
	Version       int       `json:"version"`
	CreatedAt     time.Time `json:"created_at"`
	HearthVersion string    `json:"hearth_version"`
	NodeBackend   string    `json:"node_backend"`
	Database      Database  `json:"database"`
	// Point is the backup's point, read in the copy's snapshot; nil
	// without a database.
	Point   *Point   `json:"point,omitempty"`
	Secrets string   `json:"secrets"`
	Files   []Entry  `json:"files"`
	Missing []string `json:"missing,omitempty"` // node files not held, and why
}

// Database says which database the archive holds.
type Database struct {
	Kind     string `json:"kind"` // "sqlite" or "postgres"
	Included bool   `json:"included"`
	// File is the copy's name in the archive.
	File string `json:"file,omitempty"`
	// Schema is the PostgreSQL schema the dump holds.
	Schema string `json:"postgres_schema,omitempty"`
	// SchemaVersion is the last migration applied in the copy.
	SchemaVersion string `json:"schema_version,omitempty"`
	Note          string `json:"note,omitempty"`
	// Tables are the rows of the tables the dump holds without them (a
	// split copy of PostgreSQL, format version 2), each in a file of its
	// own.
	Tables []TableFile `json:"tables,omitempty"`
}

// TableFile is a table's rows in the archive, in PostgreSQL's COPY text
// format.
type TableFile struct {
	File string `json:"file"`
	store.TableCopy
}

// DatabaseFile says whether name is a file of the database copy.
func (m *Manifest) DatabaseFile(name string) bool {
	if name == m.Database.File {
		return true
	}
	for _, t := range m.Database.Tables {
		if t.File == name {
			return true
		}
	}
	return false
}

// Point is the state of the ledger in the copy.
type Point struct {
	// OutboxHead is the largest event id in the copy. On SQLite, whose
	// one writer commits in id order, the copy holds every event up to
	// it; on PostgreSQL a few just below it may have committed after the
	// snapshot and are not in the copy (nor is their change).
	OutboxHead int64 `json:"outbox_head"`
	Wallets    int   `json:"wallets"`
	// AvailableMsat and ReservedMsat add up every wallet's balances.
	AvailableMsat int64 `json:"available_msat"`
	ReservedMsat  int64 `json:"reserved_msat"`
	// PendingPayments were in flight: after a restore the reconciler asks
	// the node how each ended.
	PendingPayments int `json:"pending_payments"`
	// BalancesSHA256 is the SHA-256 of the lines "<wallet id>
	// <available_msat> <reserved_msat>\n", wallets in id order.
	BalancesSHA256 string `json:"balances_sha256"`
}

// Entry is one file of the archive besides the manifest.
type Entry struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// entry returns the manifest's entry of name.
func (m *Manifest) entry(name string) (Entry, bool) {
	for _, e := range m.Files {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// readPoint reads the ledger's point through q, which reads one snapshot.
func readPoint(ctx context.Context, q bun.IDB, p *Point) error {
	*p = Point{} // read again when a copy starts over
	if err := q.QueryRowContext(ctx,
		"SELECT coalesce(max(m), 0) FROM (SELECT max(event_id) AS m FROM invoices UNION ALL SELECT max(event_id) FROM payments) AS e").
		Scan(&p.OutboxHead); err != nil {
		return fmt.Errorf("reading the outbox head: %w", err)
	}
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM payments WHERE status = 'Pending'").Scan(&p.PendingPayments); err != nil {
		return fmt.Errorf("counting pending payments: %w", err)
	}
	// Sorted here, not by the database: collations differ between
	// databases, bytes do not.
	rows, err := q.QueryContext(ctx, "SELECT id, available_msat, reserved_msat FROM wallets")
	if err != nil {
		return fmt.Errorf("reading balances: %w", err)
	}
	defer rows.Close()
	type balance struct {
		id                  string
		available, reserved int64
	}
	var all []balance
	for rows.Next() {
		var b balance
		if err := rows.Scan(&b.id, &b.available, &b.reserved); err != nil {
			return fmt.Errorf("reading balances: %w", err)
		}
		all = append(all, b)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading balances: %w", err)
	}
	slices.SortFunc(all, func(a, b balance) int { return strings.Compare(a.id, b.id) })
	h := sha256.New()
	for _, b := range all {
		fmt.Fprintf(h, "%s %d %d\n", b.id, b.available, b.reserved)
		p.AvailableMsat += b.available
		p.ReservedMsat += b.reserved
	}
	p.Wallets = len(all)
	p.BalancesSHA256 = hex.EncodeToString(h.Sum(nil))
	return nil
}
