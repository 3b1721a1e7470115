#!/usr/bin/env bash
# The benchmarks: every Go benchmark, then the load run of internal payments
# over HTTP on loopback beside the bare database (cmd/loadbench), on SQLite
# and PostgreSQL; on PostgreSQL it ends with one replica against two on the
# same database, paying around a ring of shared wallets, with the deadlocks
# PostgreSQL broke in each; then what the outbox costs (rounds with it on
# and off in one process: its reader and consumers, and on PostgreSQL its
# writes too); then the same internal payments through Hearth on the
# regtest LND beside the embedded node, interleaved round by round in one run (loadbench
# -lnd), with the delay until LND cancels each internally settled invoice
# (paced while LND's invoice guard is up: the LND rounds then take about a
# minute each), and then on the regtest Core Lightning (loadbench -cln:
# the invoices deleted as fast as lightningd takes them; skipped, with a
# word, without its binaries: HEARTH_CLN_BIN, ../shared/cln's tarball, or
# lightningd on the PATH); on each real node the external payments follow,
# to each outside peer through its channel, one at a time and from
# -ext-clients at once. Extra arguments go to the first and the last loadbench
# runs, e.g. -payments 50000 or -lnd-payments 10000. Last, the A/B run:
# this working tree against HEARTH_BENCH_AB_BASE (a git revision or a
# hearth binary; default cf1654f, the build of 2026-11-22), each a `hearth
# serve` process driven over HTTP from loadbench's process as an
# operator's clients would, in interleaved rounds (loadbench -ab): what
# the in-process phases cannot see (issue 38) shows there. Then the
# signals: how soon a payment's event reaches a webhook and the stream.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${HEARTH_TEST_POSTGRES_URL:-}" ]; then
  HEARTH_TEST_POSTGRES_URL=$(scripts/postgres.sh)
  export HEARTH_TEST_POSTGRES_URL
fi

# BenchmarkPayOverhead (plugins/node/lnd) runs on the regtest network.
if [ -z "${HEARTH_REGTEST_BIN:-}" ]; then
  HEARTH_REGTEST_BIN=$(scripts/regtest-build.sh) && export HEARTH_REGTEST_BIN || true
fi

go test -run '^$' -bench . -skip '^BenchmarkPaymentP99$' -benchmem ./...
# The payment p99 beside hostile plugins: 20,000 payments per run, five
# interleaved rounds, each mode's median against idle's.
scripts/p99.sh 5
go run ./cmd/loadbench "$@"
# What the outbox costs: rounds with it on and off, interleaved in one
# process (the machine's speed drifts more between runs); many short pairs,
# as a pair's change spreads by ±20-40 % here.
go run ./cmd/loadbench -outbox-rounds 20 -payments 3000 -warmup 300
if [ -n "${HEARTH_REGTEST_BIN:-}" ]; then
  # The Core Lightning network has an outside lnd too: both need these.
  go run ./cmd/loadbench -lnd -cln "$@"
else
  echo "bench: no regtest binaries (scripts/regtest-build.sh): the LND and Core Lightning comparisons are skipped" >&2
fi
go run ./cmd/loadbench -ab "${HEARTH_BENCH_AB_BASE:-cf1654f}"
# How soon a payment's invoice.settled reaches a webhook of its payee and
# the admin's stream, at 100/s and flat out (loadbench -signals).
go run ./cmd/loadbench -signals -ab-rate-payments 1000 -ab-payments 3000
# The scale phase (loadbench -scale): books of HEARTH_BENCH_SCALE payments
# and as many invoices on PostgreSQL (default 1,000,000) and a tenth of that
# on SQLite, seeded once through SQL and kept in the cache folder between
# runs; then a `hearth serve` of this working tree on them: the lists'
# first, offset and cursor pages, `hearth ledger check` (incremental, after
# 10,000 payments) and --full, `hearth backup` and restore, the payment
# rate, and the rate while a backup runs. The issue's figures (10,000,000
# on PostgreSQL, 1,000,000 on SQLite: seeding takes most of an hour, and
# 60 GB of disk with the restore):
#   go run ./cmd/loadbench -scale 10000000 -scale-sqlite 1000000
go run ./cmd/loadbench -scale "${HEARTH_BENCH_SCALE:-1000000}"
