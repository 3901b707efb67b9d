#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Installs what the multi-process test cluster needs on top of tests/vitess/install.sh (MySQL 9.7,
# mysqlctl): the separate Vitess servers vtctld, vtgate, vttablet and the client vtctldclient at
# the same pinned vitess.io/vitess version, and etcd as the topology server, all built with Go
# from the Go module proxy; openssl for the certificates of the TLS gates, jq for reshard.sh.
# Idempotent and cached: a second run checks versions and returns in about a second.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"

t0=$SECONDS
say() { printf '[cluster install %3ds] %s\n' $((SECONDS - t0)) "$*"; }

bash "$HERE/../install.sh"

# --- Vitess servers and client, same version as vtcombo ----------------------------------------
want=${VITESS_VERSION#v0.}   # v0.24.4 -> 24.4 ; the binaries print "Version: 24.0.4"
want_version="Version: ${want%%.*}.0.${want#*.}"
need_build=0
for b in vtctld vtgate vttablet vtctldclient; do
  [ -x "$VTROOT/bin/$b" ] || need_build=1
done
if [ $need_build = 0 ] && ! "$VTROOT/bin/vttablet" --version 2>&1 | grep -q "$want_version"; then
  need_build=1
fi
if [ $need_build = 1 ]; then
  say "building vtctld, vtgate, vttablet, vtctldclient at vitess.io/vitess $VITESS_VERSION (warm Go cache: ~3-5 min)"
  (
    cd "$HERE/../vtbuild"
    GOFLAGS=-mod=mod GOBIN="$VTROOT/bin" go install vitess.io/vitess/go/cmd/vtctld \
      vitess.io/vitess/go/cmd/vtgate vitess.io/vitess/go/cmd/vttablet vitess.io/vitess/go/cmd/vtctldclient
  )
fi
say "vitess servers: $("$VTROOT/bin/vttablet" --version 2>&1 | head -1)"

# --- etcd ------------------------------------------------------------------------------------
etcd_version=$(sed -n 's/^require go.etcd.io\/etcd\/server\/v3 v//p' "$HERE/etcdbuild/go.mod")
if ! "$VTROOT/bin/etcd" --version 2> /dev/null | grep -q "etcd Version: $etcd_version"; then
  say "building etcd $etcd_version (~2 min)"
  # go install would name the binary after the package folder ("server"); build it as etcd.
  (cd "$HERE/etcdbuild" && GOFLAGS=-mod=mod go build -o "$VTROOT/bin/etcd" go.etcd.io/etcd/server/v3)
fi
say "etcd: $("$VTROOT/bin/etcd" --version | head -1)"

# --- openssl for the certificates up.sh generates, jq for vtctldclient's JSON (reshard.sh) ------
for tool in openssl jq; do
  if ! command -v "$tool" > /dev/null; then
    say "installing $tool (Debian)"
    [ -n "$(ls -A /var/lib/apt/lists 2> /dev/null | grep -v lock)" ] || apt-get update -q > /dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$tool" > /dev/null
  fi
done
say "installed"
