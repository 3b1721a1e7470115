package scale

import (
	"strings"
	"testing"
	"time"
)

// TestPrintScale writes one Markdown row per database: the lists' p50 /
// p99, then the commands, the rates and the seeding; with the lists
// alone, their columns alone.
func TestPrintScale(t *testing.T) {
	lists := []listFigure{{name: "admin GET /v1/payments?limit=100", p50: 1400 * time.Microsecond, p99: 1700 * time.Microsecond}}
	f := figures{database: "postgres", n: 10_000_000, lists: lists, checkNew: 10_500, check: 330 * time.Millisecond, full: 10 * time.Second,
		backup: 244 * time.Second, backupBytes: 5_700_000_000, restore: 467 * time.Second, rate: 1234.4,
		quietRate: 1000, backupRate: 910, backupBusy: 250 * time.Second}
	var out strings.Builder
	printScale(&out, []figures{f, {database: "sqlite", n: 1_000_000, lists: lists, rate: 900, quietRate: 900, backupRate: 900, seeded: 95 * time.Second}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "| database, payments | admin GET /v1/payments?limit=100 | `hearth ledger check`") ||
		lines[1] != "|"+strings.Repeat("---|", 9) {
		t.Fatalf("heading:\n%s", out.String())
	}
	if want := "| postgres, 10,000,000 | 1.4 ms / 1.7 ms | 0.33 s (10,500) | 10 s | 244 s, 5700 MB | 467 s | 1,234 | 910 / 1,000 = 0.91 (250 s) | kept |"; lines[2] != want {
		t.Errorf("row:\n%s\nwant\n%s", lines[2], want)
	}
	if !strings.HasPrefix(lines[3], "| sqlite, 1,000,000 |") || !strings.HasSuffix(lines[3], "| 1m35s |") {
		t.Errorf("a row of books seeded now: %s", lines[3])
	}
	out.Reset()
	printScale(&out, []figures{{database: "sqlite", n: 2000, lists: lists}})
	if want := "\n| database, payments | admin GET /v1/payments?limit=100 |\n|---|---|\n| sqlite, 2,000 | 1.4 ms / 1.7 ms |\n\n"; out.String() != want {
		t.Errorf("the lists alone:\n%q\nwant\n%q", out.String(), want)
	}
	out.Reset()
	if printScale(&out, nil); out.Len() != 0 {
		t.Errorf("nothing measured printed %q", out.String())
	}
}
