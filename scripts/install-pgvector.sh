#!/usr/bin/env bash
# Installs the pgvector extension into the machine's PostgreSQL (Debian 12 has no package for it).
# Builds pgvector from Debian trixie's source package with a private apt configuration, so the
# machine's own apt sources are never touched. Idempotent: does nothing when vector.control exists.
set -euo pipefail

PG_CONFIG="${PG_CONFIG:-$(ls -d /usr/lib/postgresql/*/bin/pg_config 2>/dev/null | sort -V | tail -n 1)}"
if [ -z "$PG_CONFIG" ] || [ ! -x "$PG_CONFIG" ]; then
  echo "install-pgvector: no pg_config found under /usr/lib/postgresql/*/bin" >&2
  exit 1
fi
PG_MAJOR="$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')"
if [ -f "$("$PG_CONFIG" --sharedir)/extension/vector.control" ]; then
  echo "install-pgvector: pgvector already installed for PostgreSQL $PG_MAJOR"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if ! dpkg -s "postgresql-server-dev-$PG_MAJOR" >/dev/null 2>&1 || ! command -v make >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq "postgresql-server-dev-$PG_MAJOR" build-essential >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/archives/partial"
echo "deb-src http://deb.debian.org/debian trixie main" > "$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=-"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::Archives=$work/archives"
          -o "APT::Get::List-Cleanup=0")
apt-get "${apt_opts[@]}" update -qq
(cd "$work" && apt-get "${apt_opts[@]}" source --download-only pgvector >/dev/null)
tar -xf "$(ls "$work"/pgvector_*.orig.tar.* | head -n 1)" -C "$work"
src="$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
make -s -C "$src" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
make -s -C "$src" PG_CONFIG="$PG_CONFIG" install >/dev/null
echo "install-pgvector: installed pgvector into PostgreSQL $PG_MAJOR"
