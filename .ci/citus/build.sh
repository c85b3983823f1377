#!/usr/bin/env bash
# Builds and installs the Citus extension (distributed PostgreSQL; 13.2.2, AGPL-3.0) into the machine's
# PostgreSQL 15, once per machine: it does nothing when citus.so is installed. Needs root (apt) and the release's
# source archive, citus-13.2.2.tar.gz, named by CITUS_SRC (default: beside this script); about 5 minutes on 2 idle
# cores. Debian's PostgreSQL 15.20 exports have_createdb_privilege, which Citus 13.2.2 also defines for
# PostgreSQL < 16: the patch beside this script drops Citus's copy when the server headers declare it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${CITUS_SRC:-$here/citus-13.2.2.tar.gz}
if [ -f /usr/lib/postgresql/15/lib/citus.so ]; then echo "citus: already installed"; exit 0; fi
if [ ! -f "$src" ]; then echo "citus: no source archive at $src (set CITUS_SRC)" >&2; exit 3; fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-server-dev-15 liblz4-dev libzstd-dev \
  libssl-dev libkrb5-dev libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
tar -xzf "$src" -C "$work"
cd "$work/citus-13.2.2"
if grep -q 'have_createdb_privilege' /usr/include/postgresql/15/server/commands/dbcommands.h; then
  patch -p1 -s <"$here/pg15.20-have_createdb_privilege.patch"
fi
./configure --without-libcurl >/dev/null
make -j"$(nproc)" >/dev/null
make install >/dev/null
echo "citus: installed $(ls /usr/lib/postgresql/15/lib/citus.so)"
