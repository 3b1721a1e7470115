package ab

import (
	"fmt"
	"io"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// printAB prints each build's median figures over the rounds, and B's
// against A's: the ratio of the medians and the median of the rounds'
// ratios.
func printAB(w io.Writer, db string, builds []hearthbin.Build, rounds [2][]round) {
	type figure struct {
		name string
		of   func(round) float64
		unit string
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	figures := []figure{
		{"closed loop, payments/s", func(r round) float64 { return r.closed.Rate() }, "/s"},
		{"p99 closed loop", func(r round) float64 { return ms(r.closed.Percentile(99)) }, " ms"},
		{"p99 at the fixed rate", func(r round) float64 { return ms(r.fixed.Percentile(99)) }, " ms"},
		{"p50 at the fixed rate", func(r round) float64 { return ms(r.fixed.Percentile(50)) }, " ms"},
	}
	fmt.Fprintf(w, "\n%s, %d rounds: median (each round)\n", db, len(rounds[0]))
	for _, f := range figures {
		fmt.Fprintf(w, "  %-24s", f.name)
		med := [2]float64{}
		for i, b := range builds {
			vals := make([]float64, len(rounds[i]))
			for k, r := range rounds[i] {
				vals[k] = f.of(r)
			}
			med[i] = stats.Median(vals)
			fmt.Fprintf(w, "  %s %s%s (%s)", b.Label, stats.Figure(med[i]), f.unit, stats.JoinFigures(vals))
		}
		ratios := make([]float64, len(rounds[0]))
		for k := range ratios {
			ratios[k] = f.of(rounds[1][k]) / f.of(rounds[0][k])
		}
		fmt.Fprintf(w, "  B/A %.2f (rounds' median %.2f)\n", med[1]/med[0], stats.Median(ratios))
	}
	fmt.Fprintln(w)
}
