package scale

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// printScale prints the scale phase's figures as a Markdown table, one row
// per database, lists as p50 / p99 of their calls; with the lists alone
// (-scale-only lists), their columns alone.
func printScale(w io.Writer, all []figures) {
	if len(all) == 0 {
		return
	}
	listsOnly := all[0].rate == 0 && len(all[0].lists) > 0
	head := []string{"database, payments"}
	for _, l := range all[0].lists {
		head = append(head, l.name)
	}
	if !listsOnly {
		head = append(head, "`hearth ledger check` (payments since its checkpoint)", "`--full`", "`hearth backup`, size", "restore",
			"payments/s, closed loop", "payments/s during a backup / before (the backup under load)", "seeding")
	}
	fmt.Fprintf(w, "\n| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, f := range all {
		row := []string{fmt.Sprintf("%s, %s", f.database, stats.Thousands(f.n))}
		for _, l := range f.lists {
			row = append(row, fmt.Sprintf("%s / %s", stats.Millis(l.p50), stats.Millis(l.p99)))
		}
		if listsOnly {
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
			continue
		}
		seeded := "kept"
		if f.seeded > 0 {
			seeded = f.seeded.Round(time.Second).String()
		}
		row = append(row, fmt.Sprintf("%s (%s)", stats.Secs(f.check), stats.Thousands(f.checkNew)), stats.Secs(f.full),
			fmt.Sprintf("%s, %.0f MB", stats.Secs(f.backup), float64(f.backupBytes)/1e6), stats.Secs(f.restore),
			stats.Thousands(int(f.rate+0.5)),
			fmt.Sprintf("%s / %s = %.2f (%s)", stats.Thousands(int(f.backupRate+0.5)), stats.Thousands(int(f.quietRate+0.5)), f.backupRate/f.quietRate, stats.Secs(f.backupBusy)),
			seeded)
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}
