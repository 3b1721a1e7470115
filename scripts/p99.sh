#!/usr/bin/env bash
# The payment p99 beside hostile plugins (BenchmarkPaymentP99, host/wasm):
# 20,000 payments per run, each mode once per round, rounds interleaved so
# that the machine's drift during the runs falls on every mode alike, then
# each mode's median p99 and p50 and its change against idle.
# Usage: scripts/p99.sh [rounds, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
modes=(idle loop bomb panic 'loop+bomb' 'loop+bomb-kept-alive' spinner spinner-25)
bin=$(mktemp -d)/wasm.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./host/wasm
out=$(dirname "$bin")/runs
for ((r = 1; r <= rounds; r++)); do
  for m in "${modes[@]}"; do
    pattern="BenchmarkPaymentP99/^${m//+/\\+}\$"
    line=$(cd host/wasm && "$bin" -test.run '^$' -test.bench "$pattern" -test.benchtime 20000x 2>/dev/null | grep '^BenchmarkPaymentP99/')
    echo "round $r: $line" >&2
    # mode p50-µs p99-µs
    awk -v m="$m" '{for (i = 1; i < NF; i++) { if ($(i+1) == "p50-µs") p50 = $i; if ($(i+1) == "p99-µs") p99 = $i } print m, p50, p99}' <<<"$line" >>"$out"
  done
done
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
idle99=$(awk '$1 == "idle" {print $3}' "$out" | median)
printf '%-22s %12s %12s %10s\n' mode 'p50 (µs)' 'p99 (µs)' 'p99 vs idle'
for m in "${modes[@]}"; do
  p50=$(awk -v m="$m" '$1 == m {print $2}' "$out" | median)
  p99=$(awk -v m="$m" '$1 == m {print $3}' "$out" | median)
  printf '%-22s %12s %12s %+9.1f%%\n' "$m" "$p50" "$p99" "$(awk -v a="$p99" -v b="$idle99" 'BEGIN {print 100 * (a / b - 1)}')"
done
