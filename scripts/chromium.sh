#!/usr/bin/env bash
# Prints the path of a Chromium (or Chrome) for the dashboard's browser
# test, installing Debian's chromium with apt-get when none is found. Needs
# root (or sudo rights) on a Debian-like machine to install. Exits 1, with a
# message on stderr, when there is none and it cannot be installed.
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }

find_browser() {
  local name
  for name in chromium chromium-browser google-chrome-stable google-chrome headless-shell; do
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
  done
  return 1
}

if path=$(find_browser); then
  echo "$path"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "no Chromium found and no apt-get to install one"
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    log "no Chromium found; installing it needs root"
    exit 1
  fi
  sudo="sudo -n"
fi
log "Chromium is not installed; installing it with apt-get"
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
if path=$(find_browser); then
  echo "$path"
  exit 0
fi
log "chromium was installed but is not on PATH"
exit 1
