package store

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// Cursor is a place in a list ordered by (created_at, id): the row a page
// ended or began with. A page read after it (Page.After) or before it
// (Page.Before) starts from there through the list's index, in time
// independent of how deep into the list it is; an offset reads every row
// above it.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

// maxCursorID bounds the id a cursor carries (ids are UUIDs; plugin tables
// may use other text).
const maxCursorID = 128

// ErrCursor is the error of a cursor this server did not give out.
var ErrCursor = errors.New("not a cursor of this list")

// String is the cursor's opaque text: base64url, without padding, of the
// time in microseconds since the epoch as a varint, then the id's bytes.
// Microseconds are what both databases keep of a timestamp.
func (c Cursor) String() string {
	b := binary.AppendVarint(make([]byte, 0, binary.MaxVarintLen64+len(c.ID)), c.CreatedAt.UnixMicro())
	return base64.RawURLEncoding.EncodeToString(append(b, c.ID...))
}

// ParseCursor reads a cursor's text (Cursor.String); ErrCursor when s is
// not one.
func ParseCursor(s string) (Cursor, error) {
	if len(s) > base64.RawURLEncoding.EncodedLen(binary.MaxVarintLen64+maxCursorID) {
		return Cursor{}, ErrCursor
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return Cursor{}, ErrCursor
	}
	us, n := binary.Varint(b)
	if n <= 0 {
		return Cursor{}, ErrCursor
	}
	id := string(b[n:])
	if id == "" || !utf8.ValidString(id) || !printable(id) {
		return Cursor{}, ErrCursor
	}
	at := time.UnixMicro(us).UTC()
	if at.Year() < 1 || at.Year() > 9999 {
		return Cursor{}, ErrCursor
	}
	return Cursor{CreatedAt: at, ID: id}, nil
}

// printable reports whether s holds no control character.
func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// keyset keeps the rows past the page's cursor in the order the page reads
// them: (created_at, id) below it newest first, above it oldest first. A
// comparison of the pair is what an index on (…, created_at, id) serves as
// one range, on PostgreSQL and SQLite alike.
func (p Page) keyset(q *bun.SelectQuery, id string) *bun.SelectQuery {
	c := p.After
	if c == nil {
		c = p.Before
	}
	if c == nil {
		return q
	}
	op := "<"
	if p.ascending() {
		op = ">"
	}
	return q.Where("(created_at, "+id+") "+op+" (?, ?)", c.CreatedAt.UTC(), c.ID)
}

// ascending reports whether the page reads its rows oldest first: an Asc
// list, or a Desc one read backwards from Before (the caller turns those
// rows round).
func (p Page) ascending() bool { return p.Asc != (p.Before != nil) }
