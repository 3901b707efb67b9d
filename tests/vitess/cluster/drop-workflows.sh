#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# drop-workflows.sh KEYSPACE WORKFLOW...: deletes the VReplication streams of the workflows on
# every primary of the keyspace. A completed online DDL migration leaves its stream behind,
# stopped, and a Reshard's SwitchTraffic refuses to run while one is there; `vtctldclient
# Workflow delete` cannot remove it when the migration's shadow tables got different names on
# different shards (their names carry the second they were made: "table lists are mismatched
# across streams"), so the rows go straight from _vt.vreplication.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 2 ] || { echo "usage: drop-workflows.sh KEYSPACE WORKFLOW..." >&2; exit 2; }
keyspace=$1
shift
names=$(printf "'%s'," "$@")
names=${names%,}
for name in "$@"; do
  [[ $name =~ ^[A-Za-z0-9_-]+$ ]] || { echo "drop-workflows: not a workflow name: $name" >&2; exit 2; }
done
primaries=$(bash "$HERE/ctl.sh" GetTablets --keyspace "$keyspace" --tablet-type primary | awk '{print $1}')
[ -n "$primaries" ] || { echo "drop-workflows: no primary in keyspace $keyspace" >&2; exit 1; }
for tablet in $primaries; do
  bash "$HERE/ctl.sh" ExecuteFetchAsDBA "$tablet" "DELETE FROM _vt.vreplication WHERE workflow IN ($names)" > /dev/null
done
left=$(bash "$HERE/ctl.sh" Workflow --keyspace "$keyspace" list)
for name in "$@"; do
  if grep -q "\"$name\"" <<< "$left"; then
    echo "drop-workflows: $name is still listed in $keyspace: $left" >&2
    exit 1
  fi
done
echo "drop-workflows: deleted $* on $(echo $primaries | tr '\n' ' ')"
