package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
)

// `hearth restore --force` refuses while a server runs on the instance,
// naming it, and changes nothing: the server goes on, its writes kept. On
// PostgreSQL the restore runs with a data directory of its own, as on
// another machine: the database's mark alone refuses it. Once the server
// has stopped, the restore works and the instance is the backup's.
func TestRestoreRefusesBesideServer(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		srv, c := serveProcess(t, environ)
		token := signUp(t, c)
		wallet := createWallet(t, c, token, "ana")
		kept := invoiceID(t, c, token, wallet, 1000)
		archive := filepath.Join(t.TempDir(), "hearth.tar.gz")
		runHearth(t, environ, "backup", "--to", archive)
		later := invoiceID(t, c, token, wallet, 2000)

		restoreEnv := environ
		if postgres := strings.Contains(strings.Join(environ, " "), "HEARTH_DATABASE_URL"); postgres {
			restoreEnv = append(append([]string{}, environ...), "HEARTH_DATA_DIR="+t.TempDir())
		}
		out := failHearth(t, restoreEnv, "restore", "--from", archive, "--force")
		want := fmt.Sprintf("a hearth serve, pid %d", srv.cmd.Process.Pid)
		if !strings.Contains(out, want) || !strings.Contains(out, "stop it first") {
			t.Fatalf("restore beside a server said:\n%s\nwant it to name %q", out, want)
		}
		// Nothing changed: the server still serves what it wrote, and writes.
		c.expect(c.call("GET", "/v1/invoices/"+later, "", token), 200)
		again := invoiceID(t, c, token, wallet, 3000)
		// A migrate with nothing to apply runs beside it, as documented.
		runHearth(t, environ, "migrate")

		srv.signal(syscall.SIGTERM)
		if code := srv.wait(); code != 0 {
			t.Fatalf("the server exited %d; output:\n%s", code, srv.out)
		}
		runHearth(t, environ, "restore", "--from", archive, "--force")
		_, c = serveProcess(t, environ)
		c.expect(c.call("GET", "/v1/invoices/"+kept, "", token), 200)
		for _, id := range []string{later, again} {
			c.expect(c.call("GET", "/v1/invoices/"+id, "", token), 404)
		}
	})
}

// A server does not start on a data directory that a restore holds, and
// says which process holds it.
func TestServeRefusesDuringRestore(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	hold, err := store.OwnDir(dataDir, "restore") // as backup.Restore holds it
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Release()
	p := startProcess(t, []string{"HEARTH_DATA_DIR=" + dataDir, "HEARTH_LISTEN=127.0.0.1:0"}, "serve")
	if code := p.wait(); code != 1 {
		t.Fatalf("serve during a restore exited %d; output:\n%s", code, p.out)
	}
	out := p.out.String()
	want := fmt.Sprintf("a hearth restore, pid %d, holds this data directory (%s): wait for it to finish", os.Getpid(), dataDir)
	if !strings.Contains(out, want) {
		t.Fatalf("serve during a restore said:\n%s\nwant %q", out, want)
	}
}

// invoiceID creates an invoice of msat in the wallet and returns its id.
func invoiceID(t *testing.T, c *client, token, walletID string, msat int64) string {
	t.Helper()
	var inv struct{ ID string }
	c.decode(c.expect(c.call("POST", "/v1/invoices", fmt.Sprintf(`{"wallet_id":%q,"amount_msat":%d}`, walletID, msat), token), 201), &inv)
	if inv.ID == "" {
		t.Fatal("an invoice without an id")
	}
	return inv.ID
}
