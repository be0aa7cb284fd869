#!/usr/bin/env bash
# Installs what the tests need beyond npm's packages, from Debian's packages: Chromium for the
# console's browser tests, PostgreSQL 15 with pgvector for the PostgreSQL backend, and curl and jq
# for the documentation's examples. pgvector has no binary package in this release: it is built
# from the next release's source package.
# Safe to run again: what is already installed is left as it is.
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
VECTOR_CONTROL=/usr/share/postgresql/15/extension/vector.control
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "setup-test-machine: installing needs root: run this script as root, or install sudo" >&2; return 1
  fi
}

# /usr/bin/chromium is the browser the tests launch (test/support/browser.ts).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x "$PG_BIN/initdb" ] || missing+=(postgresql-15)
# The documentation's examples, which the tests run, call the service with curl and read ids with jq.
command -v curl >/dev/null || missing+=(curl)
command -v jq >/dev/null || missing+=(jq)
# Building pgvector takes the server's headers and a compiler; nothing else does.
if [ ! -f "$VECTOR_CONTROL" ]; then
  [ -f /usr/include/postgresql/15/server/postgres.h ] || missing+=(postgresql-server-dev-15)
  command -v make >/dev/null || missing+=(make)
  command -v gcc >/dev/null || missing+=(gcc)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing from Debian's packages (apt-get, as root or through sudo): ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$VECTOR_CONTROL" ]; then
  echo "building pgvector from Debian's source package (make install as root or through sudo)"
  work=$(mktemp -d)
  chmod 755 "$work"
  trap 'rm -rf "$work"' EXIT
  # The same mirror the system uses, read from its own source list; apt's options keep the
  # system's lists untouched.
  uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$uri" ] || uri=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list)
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri trixie main" > "$work/sources.list"
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  apt_private=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
  apt-get "${apt_private[@]}" update -qq
  (cd "$work" && apt-get "${apt_private[@]}" source --download-only -qq pgvector)
  tar -xzf "$work"/pgvector_*.orig.tar.gz -C "$work"
  source_dir=$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)
  make -s -C "$source_dir" PG_CONFIG="$PG_BIN/pg_config" with_llvm=no OPTFLAGS=
  as_root make -s -C "$source_dir" PG_CONFIG="$PG_BIN/pg_config" with_llvm=no OPTFLAGS= install
fi

/usr/bin/chromium --version
"$PG_BIN/postgres" --version
echo "pgvector $(awk -F"'" '/default_version/ { print $2 }' "$VECTOR_CONTROL")"
