#!/usr/bin/env bash
# Makes sure a local PostgreSQL answers on 127.0.0.1 with a role and a
# database for Hearth's tests, and prints their URL on stdout. It installs
# PostgreSQL with apt-get when it is missing and starts the cluster when it is
# down. Needs root (or the postgres user's rights) on a Debian-like machine.
set -euo pipefail

log() { echo "postgres.sh: $*" >&2; }

if ! command -v pg_lsclusters >/dev/null 2>&1; then
  log "PostgreSQL is not installed; installing it with apt-get"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi

cluster=$(pg_lsclusters -h 2>/dev/null | head -n 1 || true)
if [ -z "$cluster" ]; then
  ver=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  log "creating cluster $ver/main"
  pg_createcluster "$ver" main >&2
  cluster=$(pg_lsclusters -h | head -n 1)
fi
read -r ver name port status _ <<<"$cluster"
if [ "$status" != "online" ]; then
  log "starting cluster $ver/$name"
  pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start >&2
fi
for _ in $(seq 1 60); do
  pg_isready -q -h 127.0.0.1 -p "$port" && break
  sleep 0.5
done
pg_isready -q -h 127.0.0.1 -p "$port" || { log "PostgreSQL does not answer on port $port"; exit 1; }

psql_admin() { (cd / && su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -qtAc \"$1\"") ; }
# Every `hearth serve` on PostgreSQL holds a connection for each background
# leader beside its pool, and the tests run many at once: the default 100
# ran out in a CI run. Raised once, with a restart, before the tests.
if [ "$(psql_admin "SHOW max_connections")" -lt 300 ]; then
  log "raising max_connections to 300: restarting cluster $ver/$name"
  psql_admin "ALTER SYSTEM SET max_connections = 300" >&2
  pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" restart >&2
  for _ in $(seq 1 60); do
    pg_isready -q -h 127.0.0.1 -p "$port" && break
    sleep 0.5
  done
fi
if [ "$(psql_admin "SELECT 1 FROM pg_roles WHERE rolname = 'hearth'")" != "1" ]; then
  psql_admin "CREATE ROLE hearth LOGIN PASSWORD 'hearth' CREATEDB" >&2
fi
if [ "$(psql_admin "SELECT 1 FROM pg_database WHERE datname = 'hearth_test'")" != "1" ]; then
  psql_admin "CREATE DATABASE hearth_test OWNER hearth" >&2
fi
echo "postgres://hearth:hearth@127.0.0.1:$port/hearth_test?sslmode=disable"
