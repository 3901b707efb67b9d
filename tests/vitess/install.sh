#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Installs everything the local Vitess test cluster needs, from package registries only:
#   1. MySQL 9.7 from Debian sid, unpacked into a private root (host libc and apt untouched),
#      with wrappers that make it usable as Vitess's VT_MYSQL_ROOT;
#   2. vttestserver, vtcombo and mysqlctl built with `go install` at one pinned vitess.io/vitess
#      version from the Go module proxy;
#   3. the two files vttestserver reads from $VTROOT/config.
# Idempotent and cached: a second run checks and returns in about a second.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"

t0=$SECONDS
say() { printf '[install %3ds] %s\n' $((SECONDS - t0)) "$*"; }

# --- 0. the user the cluster runs as (mysqlctl refuses root) ---------------------------------
if [ -n "$VT_RUN_AS" ] && ! id -u "$VT_RUN_AS" > /dev/null 2>&1; then
  say "creating system user $VT_RUN_AS (Vitess's mysqlctl refuses to run as root)"
  useradd --system --no-create-home --home-dir "$VITESS_CDC_RUN" --shell /usr/sbin/nologin "$VT_RUN_AS"
fi

# --- 1. MySQL 9.7 ---------------------------------------------------------------------------
if [ ! -x "$MYSQL_SID_ROOT/usr/sbin/mysqld" ]; then
  say "fetching MySQL 9.7 from Debian sid into $MYSQL_SID_ROOT"
  mkdir -p "$VITESS_CDC_CACHE"
  bash "$HERE/mysql/extract-sid-mysql.sh" "$MYSQL_SID_ROOT"
fi
if [ ! -x "$VT_MYSQL_ROOT/bin/mysqld" ] || ! grep -q "$MYSQL_SID_ROOT" "$VT_MYSQL_ROOT/bin/mysqld"; then
  say "making MySQL wrappers in $VT_MYSQL_ROOT"
  bash "$HERE/mysql/make-mysql-wrappers.sh" "$MYSQL_SID_ROOT" "$VT_MYSQL_ROOT" > /dev/null
fi
# mysqld checks that its --secure-file-priv folder is accessible to the user it runs as.
[ -z "$VT_RUN_AS" ] || chown "$VT_RUN_AS" "$MYSQL_SID_ROOT/var/lib/mysql-files"
mysqld_version=$("$VT_MYSQL_ROOT/bin/mysqld" --version)
case "$mysqld_version" in
  *" Ver 9."*) ;;
  *) echo "install: unexpected mysqld version: $mysqld_version (expected MySQL 9.x)" >&2; exit 1 ;;
esac
say "mysqld: ${mysqld_version##*/}"

# The client for VTGate's MySQL port (see vt_mysql in env.sh).
if ! command -v mariadb > /dev/null; then
  say "installing mariadb-client-core (Debian) for VTGate's MySQL port"
  [ -n "$(ls -A /var/lib/apt/lists 2> /dev/null | grep -v lock)" ] || apt-get update -q > /dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mariadb-client-core > /dev/null
fi

# --- 2. Vitess binaries ---------------------------------------------------------------------
# The module that pins the version: vtbuild for the main line, vtbuild-<version> for an older one
# (scripts/vitess-lines.sh).
vtbuild_dir() {
  local dir="$HERE/vtbuild"
  grep -q "^require vitess.io/vitess $VITESS_VERSION\$" "$dir/go.mod" || dir="$HERE/vtbuild-$VITESS_VERSION"
  [ -f "$dir/go.mod" ] || { echo "install: no module pins Vitess $VITESS_VERSION: add tests/vitess/vtbuild-$VITESS_VERSION (a copy of vtbuild-v0.23.3 with that version, then go mod tidy)" >&2; exit 1; }
  echo "$dir"
}
command -v go > /dev/null || { echo "install: 'go' not found; install Go >= 1.26 (Debian: golang, or the machine's Go)" >&2; exit 1; }
want=${VITESS_VERSION#v0.}   # v0.24.4 -> 24.4 ; vtcombo prints "Version: 24.0.4"
want_major=${want%%.*}; want_patch=${want#*.}
need_build=0
for b in vttestserver vtcombo mysqlctl; do
  [ -x "$VTROOT/bin/$b" ] || need_build=1
done
if [ $need_build = 0 ] && ! "$VTROOT/bin/vtcombo" --version 2>&1 | grep -q "Version: $want_major.0.$want_patch"; then
  need_build=1
fi
if [ $need_build = 1 ]; then
  say "building vttestserver, vtcombo, mysqlctl at vitess.io/vitess $VITESS_VERSION (first time: ~3-10 min)"
  mkdir -p "$VTROOT/bin"
  (
    cd "$(vtbuild_dir)"
    # go.mod pins the version; the module cache makes later builds fast. An older line builds
    # with the Go its go.mod names (Go fetches that toolchain from the module proxy).
    case "$PWD" in
      */vtbuild-*) export GOTOOLCHAIN="go$(awk '$1 == "go" {print $2}' go.mod)" ;;
    esac
    GOFLAGS=-mod=mod GOBIN="$VTROOT/bin" go install \
      vitess.io/vitess/go/cmd/vttestserver vitess.io/vitess/go/cmd/vtcombo vitess.io/vitess/go/cmd/mysqlctl
  )
fi
say "vitess: $("$VTROOT/bin/vtcombo" --version 2>&1 | head -1)"

# --- 3. config files vttestserver reads from disk ---------------------------------------------
mkdir -p "$VTROOT/config/mycnf"
if [ ! -s "$VTROOT/config/init_db.sql" ]; then
  moddir=$(cd "$(vtbuild_dir)" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' vitess.io/vitess)
  [ -s "$moddir/config/init_db.sql" ] || { echo "install: no config/init_db.sql in $moddir" >&2; exit 1; }
  cp "$moddir/config/init_db.sql" "$VTROOT/config/init_db.sql"
  chmod 644 "$VTROOT/config/init_db.sql"
fi
cp "$HERE/config/test-suite.cnf" "$VTROOT/config/mycnf/test-suite.cnf"
say "installed (VTROOT=$VTROOT, VT_MYSQL_ROOT=$VT_MYSQL_ROOT)"
