package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// printScale prints the scale phase's figures as a Markdown table, one row
// per database, lists as p50 / p99 of their calls; with the lists alone
// (-scale-only lists), their columns alone.
func printScale(w io.Writer, all []scaleFigures) {
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
		row := []string{fmt.Sprintf("%s, %s", f.database, thousands(f.n))}
		for _, l := range f.lists {
			row = append(row, fmt.Sprintf("%s / %s", ms(l.p50), ms(l.p99)))
		}
		if listsOnly {
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
			continue
		}
		seeded := "kept"
		if f.seeded > 0 {
			seeded = f.seeded.Round(time.Second).String()
		}
		row = append(row, fmt.Sprintf("%s (%s)", secs(f.check), thousands(f.checkNew)), secs(f.full),
			fmt.Sprintf("%s, %.0f MB", secs(f.backup), float64(f.backupBytes)/1e6), secs(f.restore),
			thousands(int(f.rate+0.5)),
			fmt.Sprintf("%s / %s = %.2f (%s)", thousands(int(f.backupRate+0.5)), thousands(int(f.quietRate+0.5)), f.backupRate/f.quietRate, secs(f.backupBusy)),
			seeded)
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}

// ms writes d in milliseconds, two significant figures below 10.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return thousands(int(v+0.5)) + " ms"
}

// secs writes d in seconds.
func secs(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f s", d.Seconds())
}

// thousands writes n with commas between its thousands.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
