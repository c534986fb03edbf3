#!/bin/sh
# Starts the machine's Redis on loopback for tests (shared rate limits) when it is not running.
# No persistence: rate-limit counters are worth nothing after a restart. Idempotent.
set -e
if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then exit 0; fi
mkdir -p /var/lib/redis /var/log/redis
redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
  --dir /var/lib/redis --logfile /var/log/redis/ci.log
for i in 1 2 3 4 5 6 7 8 9 10; do
  redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && exit 0
  sleep 0.3
done
echo "redis did not start" >&2
exit 1
