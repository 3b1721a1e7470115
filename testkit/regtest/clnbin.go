package regtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CLNBinEnv names the variable holding a folder with lightningd,
// lightning-cli, bitcoind and bitcoin-cli.
const CLNBinEnv = "HEARTH_CLN_BIN"

// clnBinaries are the programs the Core Lightning network runs.
var clnBinaries = []string{"lightningd", "lightning-cli", "bitcoind", "bitcoin-cli"}

// CLNBinaries returns the folder holding lightningd, lightning-cli,
// bitcoind and bitcoin-cli: $CLNBinEnv; else the release tarball of
// ../shared/cln (found above the working folder), unpacked once into the
// user's cache under its checksum; else a copy unpacked into the cache
// before (a clone of the project elsewhere); else the folder of lightningd
// on the PATH. It returns an error wrapping ErrNoBinaries when none has them.
func CLNBinaries() (string, error) {
	if dir := os.Getenv(CLNBinEnv); dir != "" {
		return dir, hasAll(dir)
	}
	if tarball, ok := sharedCLNTarball(); ok {
		dir, err := unpackCLN(tarball)
		if err != nil {
			return "", fmt.Errorf("unpacking %s: %w", tarball, err)
		}
		return dir, hasAll(dir)
	}
	if dir, ok := cachedCLN(); ok {
		return dir, nil
	}
	path, err := exec.LookPath("lightningd")
	if err != nil {
		return "", fmt.Errorf("%w: no lightningd: set %s, or put ../shared/cln's tarball beside the project, or lightningd on the PATH", ErrNoBinaries, CLNBinEnv)
	}
	dir := filepath.Dir(path)
	return dir, hasAll(dir)
}

// cachedCLN returns the bin folder of a complete copy unpacked before.
func cachedCLN() (string, bool) {
	base, err := cacheBase()
	if err != nil {
		return "", false
	}
	found, _ := filepath.Glob(filepath.Join(base, "hearth", "cln", "*", "bin"))
	for _, dir := range found {
		if !strings.HasPrefix(filepath.Base(filepath.Dir(dir)), "unpack-") && hasAll(dir) == nil {
			return dir, true
		}
	}
	return "", false
}

func hasAll(dir string) error {
	for _, name := range clnBinaries {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%w: no %s in %s (set %s to a folder with %s)", ErrNoBinaries, name, dir, CLNBinEnv, strings.Join(clnBinaries, ", "))
		}
	}
	return nil
}

// sharedCLNTarball finds shared/cln/cln-*.tar.xz beside a folder above the
// working one (the project's ../shared/cln).
func sharedCLNTarball() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		found, _ := filepath.Glob(filepath.Join(d, "shared", "cln", "cln-*-linux-amd64.tar.xz"))
		if len(found) > 0 {
			return found[len(found)-1], true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// unpackCLN unpacks tarball into the cache, under its checksum, unless a
// complete copy is there, and returns the copy's bin folder. It unpacks
// into a temporary folder renamed into place, so a copy is whole or absent
// even when two test binaries unpack at once.
func unpackCLN(tarball string) (string, error) {
	sum, err := fileSHA256(tarball)
	if err != nil {
		return "", err
	}
	base, err := cacheBase()
	if err != nil {
		return "", err
	}
	root := filepath.Join(base, "hearth", "cln", sum[:16])
	bin := filepath.Join(root, "bin")
	if hasAll(bin) == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(root), "unpack-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	out, err := exec.Command("tar", "-xJf", tarball, "-C", tmp).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tar: %w: %s", err, out)
	}
	if err := os.Rename(tmp, root); err != nil && hasAll(bin) != nil {
		return "", err // not another unpacker's copy that won the race
	}
	return bin, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cacheBase is $XDG_CACHE_HOME, else ~/.cache.
func cacheBase() (string, error) {
	if base := os.Getenv("XDG_CACHE_HOME"); base != "" {
		return base, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache"), nil
}
