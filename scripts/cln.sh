#!/usr/bin/env bash
# Prints a folder holding lightningd, lightning-cli, bitcoind and
# bitcoin-cli for the Core Lightning tests: $HEARTH_CLN_BIN if set; else
# the release tarball of shared/cln, looked for above this project and,
# for a clone (CI clones main into a folder of its own), above the
# repository it was cloned from, unpacked once into the user's cache where
# testkit/regtest/clnbin.go looks too (~/.cache/hearth/cln/<sha256[:16]>).
# Prints nothing when there is none: the tests then say what is missing.
set -euo pipefail

log() { echo "cln.sh: $*" >&2; }

if [ -n "${HEARTH_CLN_BIN:-}" ]; then
  echo "$HEARTH_CLN_BIN"
  exit 0
fi
cd "$(dirname "$0")/.."

# find_tarball prints the newest shared/cln tarball beside $1 or a folder above it.
find_tarball() {
  local d=$1 found
  while :; do
    found=$(ls "$d"/shared/cln/cln-*-linux-amd64.tar.xz 2>/dev/null | tail -n 1 || true)
    if [ -n "$found" ]; then
      echo "$found"
      return 0
    fi
    [ "$d" = / ] && return 0
    d=$(dirname "$d")
  done
}

tarball=$(find_tarball "$PWD")
if [ -z "$tarball" ]; then
  origin=$(git config --get remote.origin.url 2>/dev/null || true)
  if [ -n "$origin" ] && [ -d "$origin" ]; then
    tarball=$(find_tarball "$(cd "$origin" && pwd)")
  fi
fi
if [ -z "$tarball" ]; then
  log "no shared/cln tarball above $PWD or its origin; the Core Lightning tests will say so"
  exit 0
fi

sum=$(sha256sum "$tarball" | cut -c1-16)
root="${XDG_CACHE_HOME:-$HOME/.cache}/hearth/cln/$sum"
if [ ! -x "$root/bin/lightningd" ]; then
  mkdir -p "$(dirname "$root")"
  tmp=$(mktemp -d "$(dirname "$root")/unpack-XXXXXX")
  tar -xJf "$tarball" -C "$tmp"
  mv -T "$tmp" "$root" 2>/dev/null || rm -rf "$tmp" # another unpacker won: its copy stands
  log "unpacked $tarball into $root"
fi
echo "$root/bin"
