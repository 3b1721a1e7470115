package backup

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// maxManifest bounds the manifest a restore reads.
const maxManifest = 1 << 20

// ErrCorrupt says an archive is not whole: truncated, changed, or not a
// Hearth backup. Nothing was written when it is returned by Verify.
var ErrCorrupt = errors.New("the backup archive is truncated or corrupted")

// validName is what a file of an archive may be called: a relative path
// of plain names, so that none is written outside its folder.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`)

// writeArchive writes m, then each of m.Files from the staging folder dir,
// as a gzip-compressed tar to w.
func writeArchive(w io.Writer, m *Manifest, dir string) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the manifest: %w", err)
	}
	body = append(body, '\n')
	if err := tw.WriteHeader(header(manifestName, int64(len(body)), m)); err != nil {
		return fmt.Errorf("writing the manifest: %w", err)
	}
	if _, err := tw.Write(body); err != nil {
		return fmt.Errorf("writing the manifest: %w", err)
	}
	for _, e := range m.Files {
		if err := copyInto(tw, e, dir, m); err != nil {
			return fmt.Errorf("writing %s: %w", e.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// copyInto writes the staged file of e to tw: exactly the bytes that were
// hashed (the staged files are the backup's own copies).
func copyInto(tw *tar.Writer, e Entry, dir string, m *Manifest) error {
	f, err := os.Open(staged(dir, e.Name))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := tw.WriteHeader(header(e.Name, e.Size, m)); err != nil {
		return err
	}
	n, err := io.Copy(tw, f)
	if err == nil && n != e.Size {
		err = fmt.Errorf("%d bytes, hashed %d", n, e.Size)
	}
	return err
}

func header(name string, size int64, m *Manifest) *tar.Header {
	return &tar.Header{Name: name, Size: size, Mode: 0o600, ModTime: m.CreatedAt, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
}

// staged is where the file name of an archive is staged in dir.
func staged(dir, name string) string { return path.Join(dir, strings.ReplaceAll(name, "/", "__")) }

// hashFile returns the size and SHA-256 of the file at p.
func hashFile(p string) (int64, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// scan reads the archive at p whole and checks it: the manifest first and
// of a known format, then exactly the files it lists, each of its size and
// SHA-256, then the end of the gzip stream and its own checksum. Each
// file's content goes to put as it is read (nil: checked only); an error
// of the archive's is ErrCorrupt, returned once the file that shows it is
// read, so what put wrote of a bad archive must be thrown away.
func scan(p string, put func(e Entry, r io.Reader) error) (*Manifest, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("opening the backup: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, corrupt("not a gzip stream: %v", err)
	}
	tr := tar.NewReader(gz)
	m, err := readManifest(tr)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, corrupt("%v", err)
		}
		e, ok := m.entry(hdr.Name)
		if !ok || seen[hdr.Name] || hdr.Typeflag != tar.TypeReg {
			return nil, corrupt("%s is not a file the manifest lists", hdr.Name)
		}
		seen[hdr.Name] = true
		if err := check(tr, e, put); err != nil {
			return nil, err
		}
	}
	// The tar's end is not the gzip stream's: reading on to it checks
	// the stream's length and CRC-32, and finds what follows the tar.
	if n, err := io.Copy(io.Discard, gz); err != nil || n > 10<<10 {
		return nil, corrupt("after the last file: %d bytes, %v", n, err)
	}
	for _, e := range m.Files {
		if !seen[e.Name] {
			return nil, corrupt("%s, listed in the manifest, is missing", e.Name)
		}
	}
	return m, nil
}

// readManifest reads the manifest, the archive's first file.
func readManifest(tr *tar.Reader) (*Manifest, error) {
	hdr, err := tr.Next()
	if err != nil {
		return nil, corrupt("no manifest: %v", err)
	}
	if hdr.Name != manifestName || hdr.Size > maxManifest {
		return nil, corrupt("the first file is %s, not %s", hdr.Name, manifestName)
	}
	body, err := io.ReadAll(tr)
	if err != nil {
		return nil, corrupt("reading the manifest: %v", err)
	}
	m := new(Manifest)
	if err := json.Unmarshal(body, m); err != nil {
		return nil, corrupt("the manifest: %v", err)
	}
	if m.Format != Format || m.Version < 1 {
		return nil, corrupt("not a Hearth backup (format %q, version %d)", m.Format, m.Version)
	}
	if m.Version > FormatVersion {
		return nil, fmt.Errorf("the backup's format version %d is newer than this Hearth's (%d): restore it with the Hearth that made it (%s) or a later one",
			m.Version, FormatVersion, m.HearthVersion)
	}
	for _, e := range m.Files {
		if !validName.MatchString(e.Name) || strings.Contains(e.Name, "..") || e.Name == manifestName {
			return nil, corrupt("the manifest lists a file named %q", e.Name)
		}
	}
	return m, nil
}

// check reads one file of the archive into put and compares it with e.
func check(r io.Reader, e Entry, put func(Entry, io.Reader) error) error {
	h := sha256.New()
	counted := &countingReader{r: io.TeeReader(r, h)}
	if put != nil {
		if err := put(e, counted); err != nil {
			return fmt.Errorf("restoring %s: %w", e.Name, err)
		}
	}
	if _, err := io.Copy(io.Discard, counted); err != nil {
		return corrupt("%s: %v", e.Name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); counted.n != e.Size || got != e.SHA256 {
		return corrupt("%s: %d bytes with SHA-256 %s, the manifest says %d bytes with %s", e.Name, counted.n, got, e.Size, e.SHA256)
	}
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
