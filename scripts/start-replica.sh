#!/usr/bin/env bash
# Starts a streaming replica of the machine's PostgreSQL cluster on port 5433 (test/integration/streaming-replica.test.ts
# reads through it; TEST_REPLICA_URL names it). Idempotent: a replica that answers is left alone, a stopped one is
# started, a missing or broken one is made again with pg_basebackup -R from the primary on 5432.
#   bash scripts/start-replica.sh            make and start it (needs root: runs PostgreSQL as the postgres user)
#   bash scripts/start-replica.sh --kill     stop it at once (pg_ctl stop -m immediate: connections drop mid-query)
#   bash scripts/start-replica.sh --remove   stop it, delete its folder and its replication slot on the primary
set -euo pipefail

PRIMARY_PORT=5432
REPLICA_PORT="${REPLICA_PORT:-5433}"
REPLICA_DIR="${REPLICA_DIR:-/var/lib/postgresql/ard-replica}"
# The slot keeps the primary's WAL while the replica is stopped (the test stops it for a few seconds), so it catches
# up when started again; --remove drops it, or the primary would keep WAL for a replica that is gone.
SLOT=ard_replica

version="$(ls /etc/postgresql | sort -V | tail -n 1)"
bin="/usr/lib/postgresql/$version/bin"
as_postgres() { runuser -u postgres -- "$@"; }
primary_sql() { psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -d postgres -XAtqc "$1"; }
replica_sql() { psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -d postgres -XAtqc "$1"; }

stop_replica() {
  if [ -f "$REPLICA_DIR/postmaster.pid" ]; then as_postgres "$bin/pg_ctl" -D "$REPLICA_DIR" -m fast -w stop || true; fi
}

if [ "${1:-}" = "--kill" ]; then
  as_postgres "$bin/pg_ctl" -D "$REPLICA_DIR" -m immediate -w stop
  exit 0
fi

if [ "${1:-}" = "--remove" ]; then
  stop_replica
  rm -rf "$REPLICA_DIR"
  primary_sql "SELECT pg_drop_replication_slot('$SLOT') FROM pg_replication_slots WHERE slot_name = '$SLOT'" >/dev/null
  echo "start-replica: removed"
  exit 0
fi

if pg_isready -h 127.0.0.1 -p "$REPLICA_PORT" -q && [ "$(replica_sql 'SELECT pg_is_in_recovery()')" = "t" ]; then
  echo "start-replica: the replica on port $REPLICA_PORT is running"
  exit 0
fi

# The Debian cluster trusts 127.0.0.1 for every database, which does not cover replication connections.
hba="/etc/postgresql/$version/main/pg_hba.conf"
if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32' "$hba"; then
  echo 'host replication all 127.0.0.1/32 trust' >>"$hba"
  primary_sql 'SELECT pg_reload_conf()' >/dev/null
  echo "start-replica: allowed replication connections from 127.0.0.1 in $hba"
fi

make_replica() {
  stop_replica
  rm -rf "$REPLICA_DIR"
  primary_sql "SELECT pg_drop_replication_slot('$SLOT') FROM pg_replication_slots WHERE slot_name = '$SLOT'" >/dev/null
  install -d -o postgres -g postgres -m 700 "$REPLICA_DIR"
  as_postgres "$bin/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$REPLICA_DIR" -R -X stream -c fast -C -S "$SLOT"
  # The Debian cluster keeps its configuration in /etc, outside the data folder: the replica gets its own. A hot
  # standby needs these limits at least as high as the primary's.
  local limits
  limits="$(primary_sql "SELECT string_agg(name || ' = ' || setting, E'\n') FROM pg_settings WHERE name IN
    ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')")"
  cat >"$REPLICA_DIR/postgresql.conf" <<EOF
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '/var/run/postgresql'
hot_standby = on
hot_standby_feedback = on
# A test replica, made again when it breaks: after a crash (the test's pg_ctl stop -m immediate) a start with fsync
# on first syncs every file of the cluster, 30 s and more on a machine full of test databases.
fsync = off
$limits
EOF
  printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >"$REPLICA_DIR/pg_hba.conf"
  : >"$REPLICA_DIR/pg_ident.conf"
  chown postgres:postgres "$REPLICA_DIR"/*.conf
  echo "start-replica: made a replica of port $PRIMARY_PORT in $REPLICA_DIR"
}

start_replica() {
  as_postgres "$bin/pg_ctl" -D "$REPLICA_DIR" -l "$REPLICA_DIR/replica.log" -w -t 60 start
}

streams() {
  for _ in $(seq 1 30); do
    [ "$(replica_sql "SELECT status FROM pg_stat_wal_receiver" 2>/dev/null || true)" = "streaming" ] && return 0
    sleep 1
  done
  return 1
}

if [ ! -f "$REPLICA_DIR/standby.signal" ]; then make_replica; fi
stop_replica
# A replica that does not start, or starts but cannot stream (its slot or the WAL it needs is gone), is made again.
if ! { start_replica && streams; }; then
  echo "start-replica: the replica in $REPLICA_DIR did not start streaming; making it again" >&2
  make_replica
  start_replica
  if ! streams; then
    echo "start-replica: the replica on port $REPLICA_PORT does not stream (see $REPLICA_DIR/replica.log)" >&2
    exit 1
  fi
fi
echo "start-replica: the replica on port $REPLICA_PORT streams from port $PRIMARY_PORT"
