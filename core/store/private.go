package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The SQLite database holds the instance's secrets (the token signing
// secret, the embedded node's key): its folder is the owner's only, and so
// are its files, whatever the umask or the modes an older version left.

// PrivateDir makes sure dir exists and only its owner may change it: a
// missing folder is created 0700, one that group or others may write is
// refused, saying how to fix it (anyone who can write the folder can
// replace the database, or its WAL, under the server).
func PrivateDir(dir string) error {
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating data directory: %w", err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("checking data directory: %w", err)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("data directory %s is writable by group or others (mode %04o): it holds the instance's secrets; run `chmod go-w %s` (or 700) and start again",
			dir, perm, dir)
	}
	return nil
}

// privateSQLiteFiles creates the database file at path 0600 if it is
// missing, so that SQLite, which gives its WAL and shared-memory files the
// database file's mode, creates those 0600 too; and takes group's and
// others' access off the files that exist already.
func privateSQLiteFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("creating database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("creating database file: %w", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("checking %s: %w", p, err)
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&0o700); err != nil {
				return fmt.Errorf("making %s private: %w", p, err)
			}
		}
	}
	return nil
}
