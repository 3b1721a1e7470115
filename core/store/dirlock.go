package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A data directory is held by the processes that use it, through a lock
// on one file in it (flock, which the kernel releases when the process
// ends, however it ends): `hearth serve` shares it with other servers,
// and a command that must not run beside a server (restore, a migration
// that changes the schema) takes it alone. The file says who took it last,
// so that a refusal can name the process.

// DirLockFile is the name of the lock file in the data directory. It is
// not the instance's data: a restore ignores it when it looks for what a
// directory holds.
const DirLockFile = "hearth.lock"

// DirLock is this process's hold on a data directory.
type DirLock struct {
	f *os.File
}

// HeldError says that another process holds what this one needs: a data
// directory or a database.
type HeldError struct {
	// Holder names the process: "a hearth serve, pid 123,".
	Holder string
	// What is what it holds: "this data directory (/srv/hearth)".
	What string
	// Advice says what to do: "stop it first".
	Advice string
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s holds %s: %s", e.Holder, e.What, e.Advice)
}

// ShareDir holds the data directory dir beside other processes that share
// it (servers), as command (which the lock file records with this
// process's pid). It refuses, with a *HeldError, while a process holds dir
// alone. dir is created if missing.
func ShareDir(dir, command string) (*DirLock, error) {
	return lockDir(dir, command, syscall.LOCK_SH, "wait for it to finish, then start again")
}

// OwnDir holds the data directory dir alone, as command. It refuses, with
// a *HeldError, while any other process holds dir (a server). dir is
// created if missing.
func OwnDir(dir, command string) (*DirLock, error) {
	return lockDir(dir, command, syscall.LOCK_EX, "stop it first")
}

func lockDir(dir, command string, how int, advice string) (*DirLock, error) {
	if err := PrivateDir(dir); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, DirLockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the data directory's lock %s: %w", p, err)
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &HeldError{Holder: dirHolder(f), What: "this data directory (" + dir + ")", Advice: advice}
		}
		return nil, fmt.Errorf("locking the data directory %s: %w", dir, err)
	}
	// Who holds it, for a refusal to name: the last to take it.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(command+" "+strconv.Itoa(os.Getpid())+"\n"), 0) //nolint:errcheck // only a name for messages
	}
	return &DirLock{f: f}, nil
}

// dirHolder names the process that wrote the lock file last.
func dirHolder(f *os.File) string {
	b := make([]byte, 128)
	n, _ := f.ReadAt(b, 0)
	command, pid, ok := strings.Cut(strings.TrimSpace(string(b[:n])), " ")
	if !ok || command == "" {
		return "another hearth process"
	}
	return fmt.Sprintf("a hearth %s, pid %s,", command, pid)
}

// Release lets the data directory go. It is safe on nil and more than once.
func (l *DirLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Close() // closing the file releases the flock
	l.f = nil
}
