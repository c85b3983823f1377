#!/usr/bin/env bash
# Builds and installs the Citus extension (distributed PostgreSQL; 13.2.2, AGPL-3.0) into the machine's
# PostgreSQL 15, once per machine: it does nothing when citus.so is installed.
#   build.sh deps   installs the build's Debian packages (apt; nothing when they are installed) and checks that a
#                   source archive is there; run it before PostgreSQL serves tests: it may upgrade postgresql-15
#                   to the version of its headers, which restarts the server
#   build.sh        deps, then configures, compiles and installs
# Needs root. The release's source archive, citus-13.2.2.tar.gz, is the first of: $CITUS_SRC, this folder,
# ../shared/citus/ beside the repository's folder (it is not in the repository:
# 7.9 MB of third-party source). Exit status 3: no archive (and no installed extension), nothing done.
# The build is for tests, so it is cheap: no optimisation or debug information (COPT="-O0 -g0"; override with
# CITUS_COPT), no LLVM bitcode, only the extension and the columnar access method that CREATE EXTENSION citus needs,
# $(nproc) jobs: 82 s of CPU (docs/decisions/citus.md, "Sharding by account on Citus"). DESTDIR=dir builds afresh and installs
# under dir instead, leaving the machine's PostgreSQL alone (to time a build).
# Debian's PostgreSQL 15.20 exports have_createdb_privilege, which Citus 13.2.2 also defines for PostgreSQL < 16:
# pg15.20-have_createdb_privilege.patch (beside this script) drops Citus's copy when the server headers declare it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
step=${1:-all}
installed=/usr/lib/postgresql/15/lib/citus.so
if [ -z "${DESTDIR:-}" ] && [ -f "$installed" ]; then echo "citus: already installed ($installed)"; exit 0; fi

src=
for f in ${CITUS_SRC:+"$CITUS_SRC"} "$here/citus-13.2.2.tar.gz" "$root/../shared/citus/citus-13.2.2.tar.gz"; do
  if [ -f "$f" ]; then src=$(cd "$(dirname "$f")" && pwd)/$(basename "$f"); break; fi
done
if [ -z "$src" ]; then
  echo "citus: no source archive: set CITUS_SRC, or put citus-13.2.2.tar.gz in .ci/citus/ or ../shared/citus/" >&2
  exit 3
fi

packages=(postgresql-15 postgresql-server-dev-15 liblz4-dev libzstd-dev libssl-dev libkrb5-dev libselinux1-dev
  libxslt1-dev libpam0g-dev libreadline-dev)
ok=$(dpkg-query -W -f='${Status}\n' "${packages[@]}" 2>/dev/null | grep -cx 'install ok installed' || true)
if [ "$ok" != "${#packages[@]}" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
fi
[ "$step" = deps ] && { echo "citus: build dependencies installed; source $src"; exit 0; }

start=$(date +%s)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
tar -xzf "$src" -C "$work"
cd "$work/citus-13.2.2"
if grep -q 'have_createdb_privilege' /usr/include/postgresql/15/server/commands/dbcommands.h; then
  patch -p1 -s <"$here/pg15.20-have_createdb_privilege.patch"
fi
./configure --without-libcurl >/dev/null
make -j"$(nproc)" COPT="${CITUS_COPT:--O0 -g0}" with_llvm=no extension >/dev/null
make COPT="${CITUS_COPT:--O0 -g0}" with_llvm=no install-extension >/dev/null
echo "citus: installed ${DESTDIR:-}$installed from $src in $(($(date +%s) - start)) s"
