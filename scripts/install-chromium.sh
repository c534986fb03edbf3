#!/usr/bin/env bash
# Debian's chromium for the browser tests (test/browser/, driven by playwright-core with this executable;
# no browser is downloaded by npm). Idempotent: does nothing when /usr/bin/chromium exists.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "== chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
  exit 0
fi
echo "== installing chromium (apt)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core > /dev/null
echo "== chromium: $(/usr/bin/chromium --version)"
