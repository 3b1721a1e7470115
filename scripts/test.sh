#!/usr/bin/env bash
# The whole test suite: formatting, vet, and every test with the race
# detector, on SQLite and on PostgreSQL, and on a regtest Lightning network. PostgreSQL comes from
# HEARTH_TEST_POSTGRES_URL, or else from scripts/postgres.sh, which starts
# (or installs) the local server; when neither works the PostgreSQL half is
# skipped with a message, unless CI is set, where that is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${HEARTH_TEST_POSTGRES_URL:-}" ]; then
  if url=$(scripts/postgres.sh); then
    export HEARTH_TEST_POSTGRES_URL="$url"
  elif [ -n "${CI:-}" ]; then
    echo "test.sh: PostgreSQL could not be started" >&2
    exit 1
  else
    echo "test.sh: PostgreSQL unavailable; its tests will be skipped" >&2
  fi
fi

# The regtest tests (a real btcd and two lnd nodes) need binaries built from
# the Go module proxy, cached between runs; without them those tests are
# skipped with a message, unless CI is set, where that is a failure.
if [ -z "${HEARTH_REGTEST_BIN:-}" ]; then
  if bin=$(scripts/regtest-build.sh); then
    export HEARTH_REGTEST_BIN="$bin"
  elif [ -n "${CI:-}" ]; then
    echo "test.sh: the regtest binaries could not be built" >&2
    exit 1
  else
    echo "test.sh: regtest binaries unavailable; the regtest tests will be skipped" >&2
  fi
fi

# The dashboard's browser test (web/) drives a headless Chromium:
# scripts/chromium.sh finds one or installs Debian's. Without it that test is
# skipped with a message, unless CI is set, where that is a failure.
if [ -z "${HEARTH_CHROMIUM:-}" ]; then
  if chromium=$(scripts/chromium.sh); then
    export HEARTH_CHROMIUM="$chromium"
  elif [ -n "${CI:-}" ]; then
    echo "test.sh: Chromium could not be found or installed" >&2
    exit 1
  else
    echo "test.sh: Chromium unavailable; the dashboard's browser test will be skipped" >&2
  fi
fi

unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
go test -race -count=1 -timeout 20m ./...
# Every benchmark once, so that one whose setup or checks broke fails here
# rather than in make bench. Their figures mean nothing at one iteration,
# so only the rest of the output is shown (a failure's lines included).
go test -run '^$' -bench . -benchtime 1x -count=1 -timeout 10m ./... | awk '!/^Benchmark/'

# The SDK and the example plugins are modules of their own (the server
# never imports the SDK); their tests build the examples for wasip1 and run
# them in the host.
(cd sdk && go vet ./... && GOOS=wasip1 GOARCH=wasm go vet ./... && go test -race -count=1 ./...)
(cd examples && go vet ./... && go test -race -count=1 -timeout 10m ./...)

# Fuzz the decoders of untrusted input for a short while: a number of
# inputs rather than a duration, whose deadline can fail a run when the
# machine is busy ("context deadline exceeded").
go test -run '^$' -fuzz '^FuzzParseInput$' -fuzztime 50000x ./core/ledger
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 50000x ./plugins/node/embedded
go test -run '^$' -fuzz '^FuzzParseManifest$' -fuzztime 20000x ./host
go test -run '^$' -fuzz '^FuzzHostCall$' -fuzztime 20000x ./host
go test -run '^$' -fuzz '^FuzzLNURLAnswers$' -fuzztime 20000x ./plugins/lnurl
go test -run '^$' -fuzz '^FuzzZapRequest$' -fuzztime 20000x ./plugins/nostr
go test -run '^$' -fuzz '^FuzzVerify$' -fuzztime 20000x ./plugins/webhooks
(cd sdk && go test -run '^$' -fuzz '^FuzzParseEvent$' -fuzztime 100000x .)
