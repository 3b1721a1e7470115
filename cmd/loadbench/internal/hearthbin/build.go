// Package hearthbin builds Hearth's binary and runs it: a git revision, a
// binary or the working tree made into a `hearth` (Make), and `hearth
// serve` processes of it on databases of their own (Start, Kept), which
// loadbench drives over HTTP from its own process as an operator's
// clients would.
package hearthbin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build is one Hearth build: a `hearth` binary.
type Build struct {
	Label string   // "A" or "B"
	Name  string   // what was asked for: a revision, a path or "working tree"
	Bin   string   // the binary
	Env   []string // KEY=VALUE set for this build's servers alone (-ab-a-env, -ab-b-env)
	temp  string   // a folder to remove afterwards: the working tree's build
}

// Remove removes the build's binary if it was built for this run alone.
func (b Build) Remove() {
	if b.temp != "" {
		os.RemoveAll(b.temp)
	}
}

// Make returns the binary of spec, labelled label: an executable file as
// it is, "." the working tree built now, or a git revision built once in
// a worktree of its own into ${XDG_CACHE_HOME:-~/.cache}/hearth/loadbench/<commit>.
func Make(ctx context.Context, label, spec string) (Build, error) {
	b := Build{Label: label, Name: spec}
	if fi, err := os.Stat(spec); err == nil && !fi.IsDir() {
		b.Bin, err = filepath.Abs(spec)
		return b, err
	}
	if spec == "." {
		root, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			return b, fmt.Errorf("finding the working tree: %w", err)
		}
		dir, err := os.MkdirTemp("", "hearth-ab-")
		if err != nil {
			return b, err
		}
		b.Name, b.Bin, b.temp = "working tree", filepath.Join(dir, "hearth"), dir
		return b, goBuild(ctx, strings.TrimSpace(string(root)), b.Bin)
	}
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--verify", spec+"^{commit}").Output()
	if err != nil {
		return b, fmt.Errorf("%q is neither a file nor a git revision", spec)
	}
	commit := strings.TrimSpace(string(out))
	cache, err := os.UserCacheDir()
	if err != nil {
		return b, err
	}
	b.Name = spec + " (" + commit[:7] + ")"
	b.Bin = filepath.Join(cache, "hearth", "loadbench", commit, "hearth")
	if _, err := os.Stat(b.Bin); err == nil {
		return b, nil
	}
	tree, err := os.MkdirTemp("", "hearth-ab-tree-")
	if err != nil {
		return b, err
	}
	defer os.RemoveAll(tree)
	if out, err := exec.CommandContext(ctx, "git", "worktree", "add", "--detach", tree, commit).CombinedOutput(); err != nil {
		return b, fmt.Errorf("git worktree add %s: %v: %s", commit[:7], err, out)
	}
	defer exec.Command("git", "worktree", "remove", "--force", tree).Run() //nolint:errcheck // best effort
	fmt.Printf("building %s …\n", b.Name)
	return b, goBuild(ctx, tree, b.Bin)
}

// goBuild builds ./cmd/hearth of dir into bin, as make build does.
func goBuild(ctx context.Context, dir, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/hearth")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %v: %s", dir, err, out)
	}
	return nil
}
