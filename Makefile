GO         ?= go
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BUILD_TIME := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS    := -X main.version=$(VERSION) -X main.buildTime=$(BUILD_TIME)

.PHONY: run build test bench devnet regtest-bin migrate clean

## run: build and start `hearth serve` on :3000 (SQLite in ./data)
run: build
	./bin/hearth serve

## build: build ./bin/hearth, a static binary (no cgo: SQLite is pure Go)
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/hearth ./cmd/hearth

## test: gofmt, vet and every test with -race, on SQLite and PostgreSQL
test:
	scripts/test.sh

## bench: the Go benchmarks, then internal payments over HTTP against the bare database
bench:
	scripts/bench.sh

## devnet: start a regtest Lightning network (btcd, Hearth's lnd, an outside peer with a
## channel) and print the HEARTH_* settings for `hearth serve`; Ctrl-C stops it.
## DEVNET_BACKEND=cln make devnet: Hearth on Core Lightning instead (bitcoind, Hearth's
## lightningd, an outside lightningd and an outside lnd, a channel to each)
DEVNET_BACKEND ?= lnd
devnet:
	HEARTH_REGTEST_BIN="$$(scripts/regtest-build.sh)" $(GO) run ./testkit/regtest/devnet -backend "$(DEVNET_BACKEND)"

## regtest-bin: build (or find cached) lnd, lncli, btcd and btcctl for the regtest tests
regtest-bin:
	scripts/regtest-build.sh

## migrate: apply migrations to the configured database
migrate: build
	./bin/hearth migrate

clean:
	rm -rf bin
