package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHelpExitsZeroEverywhere runs hearth as a process of its own with
// each way of asking for help, of hearth and of each command: each prints
// its usage and exits 0, having done nothing else (the data directory is
// left empty: no database made, no server started, nothing restored).
func TestHelpExitsZeroEverywhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args  []string
		usage string
	}{
		{[]string{"--help"}, "Usage: hearth"},
		{[]string{"-h"}, "Usage: hearth"},
		{[]string{"help"}, "Usage: hearth"},
		{[]string{"serve", "--help"}, "Usage: hearth"},
		{[]string{"migrate", "-h"}, "Usage: hearth"},
		{[]string{"ledger", "check", "--help"}, "Usage: hearth"},
		{[]string{"node", "pay", "--help"}, "Usage: hearth"},
		{[]string{"version", "--help"}, "Usage: hearth"},
		{[]string{"plugin", "--help"}, "Usage: hearth plugin"},
		{[]string{"plugin", "-h"}, "Usage: hearth plugin"},
		{[]string{"plugin", "help"}, "Usage: hearth plugin"},
		{[]string{"plugin", "list", "--help"}, "Usage: hearth plugin"},
		{[]string{"plugin", "enable", "x", "--help"}, "Usage: hearth plugin"},
		{[]string{"backup", "--help"}, "-to"},
		{[]string{"restore", "--help"}, "-from"},
		{[]string{"cln-guard", "--help"}, "Usage: hearth"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := startProcess(t, []string{"HEARTH_DATA_DIR=" + dir, "HEARTH_LISTEN=127.0.0.1:0"}, tc.args...)
			select {
			case <-p.done:
			case <-time.After(time.Minute):
				t.Fatalf("hearth %s still runs after a minute; output:\n%s", strings.Join(tc.args, " "), p.out)
			}
			if p.err != nil {
				t.Fatalf("hearth %s: %v; output:\n%s", strings.Join(tc.args, " "), p.err, p.out)
			}
			if !strings.Contains(p.out.String(), tc.usage) {
				t.Fatalf("hearth %s printed %q, want its usage (%q)", strings.Join(tc.args, " "), p.out, tc.usage)
			}
			if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
				t.Fatalf("asking for help left %v in the data directory (%v)", entries, err)
			}
		})
	}
}

// listedPlugin is what `hearth plugin list --json` shows of a plugin
// that its table shows too.
type listedPlugin struct {
	Name, Kind, State, Version string
	Capabilities               []string
}

// cell is how the table shows s: "-" when empty.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// pluginRow is a row of `hearth plugin list`'s table.
var pluginRow = regexp.MustCompile(`^(\S+)\s+(builtin|wasm)\s+(installed|enabled|disabled|failed)\s+(\S+)\s+(.+)$`)

// TestPluginListIsATable lists the plugins of a running server: a table
// by default, a header and a row for each plugin (name, kind, state,
// version, capabilities), short enough to read; --json prints the
// server's records as before, the same plugins.
func TestPluginListIsATable(t *testing.T) {
	t.Parallel()
	_, c := serveProcess(t, []string{"HEARTH_DATA_DIR=" + t.TempDir()})
	var tok struct{ Token string }
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	environ := []string{"HEARTH_TOKEN=" + tok.Token}
	list := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(context.Background(), append([]string{"plugin", "--url", c.base, "list"}, args...), &out, environ); err != nil {
			t.Fatalf("plugin list %v: %v; output:\n%s", args, err, out.String())
		}
		return out.String()
	}

	var records []listedPlugin
	if err := json.Unmarshal([]byte(list("--json")), &records); err != nil || len(records) < 3 {
		t.Fatalf("plugin list --json: %v, %d records", err, len(records))
	}
	table := strings.Split(strings.TrimSpace(list()), "\n")
	t.Logf("hearth plugin list:\n%s", strings.Join(table, "\n"))
	if want := regexp.MustCompile(`^NAME\s+KIND\s+STATE\s+VERSION\s+CAPABILITIES$`); !want.MatchString(table[0]) {
		t.Fatalf("the table's header is %q; the table:\n%s", table[0], strings.Join(table, "\n"))
	}
	if len(table) != len(records)+1 {
		t.Fatalf("the table has %d lines for %d plugins:\n%s", len(table), len(records), strings.Join(table, "\n"))
	}
	for i, r := range records {
		m := pluginRow.FindStringSubmatch(table[i+1])
		version, caps := cell(r.Version), cell(strings.Join(r.Capabilities, ", "))
		if m == nil || m[1] != r.Name || m[2] != r.Kind || m[3] != r.State || m[4] != version || m[5] != caps {
			t.Errorf("row %q, want %s %s %s %s %s", table[i+1], r.Name, r.Kind, r.State, version, caps)
		}
	}
	if !slices.ContainsFunc(records, func(r listedPlugin) bool { return r.Name == "nwc" && len(r.Capabilities) > 0 }) {
		t.Errorf("no built-in nwc with its capabilities among %+v", records)
	}
}
