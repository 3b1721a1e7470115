#!/usr/bin/env bash
# Builds lnd, lncli, btcd and btcctl for the regtest tests and `make devnet`
# from the Go module proxy, using the versions pinned in tools/regtest/go.mod,
# and prints the directory holding them on stdout. The binaries are cached
# outside the clone, keyed by those versions, in
#   ${XDG_CACHE_HOME:-$HOME/.cache}/hearth/regtest/<lnd>-<btcd>/bin
# so a fresh clone on the same machine reuses them. A cold build takes a few
# minutes and about 1.2 GB of module cache; later runs return at once.
set -euo pipefail
cd "$(dirname "$0")/../tools/regtest"

log() { echo "regtest-build.sh: $*" >&2; }

version() { awk -v m="$1" '$1 == m && $2 ~ /^v/ { print $2; exit }' go.mod; }
lnd_version=$(version github.com/lightningnetwork/lnd)
btcd_version=$(version github.com/btcsuite/btcd)
if [ -z "$lnd_version" ] || [ -z "$btcd_version" ]; then
  log "cannot read the lnd and btcd versions from tools/regtest/go.mod"
  exit 1
fi

dir="${XDG_CACHE_HOME:-$HOME/.cache}/hearth/regtest/${lnd_version}-${btcd_version}/bin"
if [ -x "$dir/lnd" ] && [ -x "$dir/lncli" ] && [ -x "$dir/btcd" ] && [ -x "$dir/btcctl" ]; then
  echo "$dir"
  exit 0
fi

log "building lnd $lnd_version and btcd $btcd_version into $dir (a few minutes the first time)"
tmp="$dir.tmp.$$"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
tags="signrpc walletrpc chainrpc invoicesrpc routerrpc peersrpc"
go build -trimpath -tags "$tags" -o "$tmp/lnd" github.com/lightningnetwork/lnd/cmd/lnd >&2
go build -trimpath -tags "$tags" -o "$tmp/lncli" github.com/lightningnetwork/lnd/cmd/lncli >&2
go build -trimpath -o "$tmp/btcd" github.com/btcsuite/btcd >&2
go build -trimpath -o "$tmp/btcctl" github.com/btcsuite/btcd/cmd/btcctl >&2
rm -rf "$dir"
mv "$tmp" "$dir"
log "built into $dir"
echo "$dir"
