// Package hearthexe builds the hearth executable of the source tree the
// calling program runs in, for what needs hearth itself rather than the
// program that embeds it: lightningd starts it as Hearth's invoice guard
// plugin (`hearth cln-guard`, node.cln.guard_plugin) for tests and
// loadbench, which run Hearth inside their own process.
package hearthexe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build builds ./cmd/hearth of the module around the working directory
// into dir/hearth and returns its path.
func Build(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module to build hearth: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("building hearth: the working directory is in no Go module")
	}
	bin := filepath.Join(dir, "hearth")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/hearth")
	cmd.Dir = filepath.Dir(mod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building hearth: %w: %s", err, out)
	}
	return bin, nil
}
