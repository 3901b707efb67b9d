#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# MySQL 9.7 for the WRAPPER way (not for chroot): mysql-server-core + mysql-client-core from
# Debian sid and their dependency closure unpacked into a private root by
# tests/debian/extract-packages.sh (nothing of the host's apt state touched), then checked: every
# shared library of mysqld resolves inside the root.
#
# usage: extract-sid-mysql.sh ROOT   (kept if ROOT/usr/sbin/mysqld exists)
# env MIRROR  Debian mirror (default: the one the host's apt sources use)
# Then: make-mysql-wrappers.sh ROOT DEST   (ROOT is not a bootable root: no
#       /bin/sh etc., so it cannot be chrooted into)
set -euo pipefail
ROOT=${1:?usage: $0 ROOT}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ -x "$ROOT/usr/sbin/mysqld" ]; then echo "already present: $ROOT"; exit 0; fi
SUITE=sid ARCH=amd64 bash "$HERE/../../debian/extract-packages.sh" "$ROOT" mysql-server-core mysql-client-core
mkdir -p -m 700 "$ROOT/var/lib/mysql-files"

R=$ROOT
"$R/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \
  --library-path "$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu" "$R/usr/sbin/mysqld" --version
# every shared library of mysqld must resolve inside the root
missing=$("$R/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --list \
  --library-path "$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu" "$R/usr/sbin/mysqld" \
  | awk '/=>/ {print $3}' | grep -v "^$R/" || true)
[ -z "$missing" ] || { echo "libraries resolved outside $R: $missing" >&2; exit 1; }
echo "root ready: $ROOT"
