#!/usr/bin/env bash
# Starts the machine's PostgreSQL cluster when it is not running, and waits until it answers.
set -euo pipefail
if pg_isready -h 127.0.0.1 -p 5432 -q; then
  echo "start-postgres: PostgreSQL is running"
  exit 0
fi
version="$(ls /etc/postgresql | sort -V | tail -n 1)"
pg_ctlcluster --skip-systemctl-redirect "$version" main start
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 5432 -q && { echo "start-postgres: PostgreSQL $version started"; exit 0; }
  sleep 1
done
echo "start-postgres: PostgreSQL did not become ready" >&2
exit 1
