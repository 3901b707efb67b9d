#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Starts the local Vitess test cluster (vttestserver: one mysqld + one vtcombo holding VTGate and
# all tablets) with keyspaces `commerce` (unsharded), `customer` (2 shards: -80, 80-) and `strict`
# (3 shards: -55, 55-aa, aa-).
# Returns once VTGate's gRPC and MySQL ports answer and every shard serves queries.
# Each start is fresh: the schema in tests/vitess/schema is applied to a new data dir.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

UP_TIMEOUT=${VT_UP_TIMEOUT:-90}
t0=$SECONDS

for b in vttestserver vtcombo mysqlctl; do
  [ -x "$VTROOT/bin/$b" ] || die "Vitess is not installed ($VTROOT/bin/$b missing): run tests/vitess/install.sh first"
done
[ -x "$VT_MYSQL_ROOT/bin/mysqld" ] || die "MySQL is not installed ($VT_MYSQL_ROOT/bin/mysqld missing): run tests/vitess/install.sh first"

mkdir -p "$VITESS_CDC_RUN"
if pid=$(cluster_pid); then
  if cluster_ready; then
    echo "up: already running (pid $pid): VTGate gRPC $VTGATE_GRPC_ADDR, MySQL 127.0.0.1:$VTGATE_MYSQL_PORT. Stop it with tests/vitess/down.sh"
    exit 0
  fi
  die "a cluster is already starting or unhealthy (pid $pid, log $VT_LOG). Stop it with tests/vitess/down.sh, then run up again"
fi
if [ -f "$VT_PID_FILE" ]; then
  echo "up: removing stale pid file $VT_PID_FILE (pid $(cat "$VT_PID_FILE") is not a running vttestserver)"
  rm -f "$VT_PID_FILE"
fi
stop_stale_mysqld
for port in "$VTGATE_HTTP_PORT" "$VTGATE_GRPC_PORT" "$VT_MYSQLD_PORT" "$VTGATE_MYSQL_PORT"; do
  if port_in_use "$port"; then
    die "port $port is already in use by $(port_owner "$port"). Stop that process, or choose other ports with VT_BASE_PORT=<n> (uses n..n+3)"
  fi
done

rm -rf "$VT_DATA_DIR" && mkdir -p "$VT_DATA_DIR"
as_user=()
if [ -n "$VT_RUN_AS" ]; then
  chown -R "$VT_RUN_AS" "$VITESS_CDC_RUN"
  as_user=(setpriv "--reuid=$VT_RUN_AS" "--regid=$VT_RUN_AS" --init-groups)
fi
# Flags by their v23+ names: v22 and older spell them with underscores, and flags an older line
# (scripts/vitess-lines.sh) does not have yet are left out.
known_flags=$("$VTROOT/bin/vttestserver" --help 2>&1 | grep -oE -- '--[a-z_-]+' | sort -u || true)
flag() { if grep -qx -- "--$1" <<< "$known_flags"; then echo "--$1"; else echo "--${1//-/_}"; fi; }
has_flag() { grep -qx -- "$(flag "$1")" <<< "$known_flags"; }
version_flags=()
has_flag gateway-initial-tablet-timeout && version_flags+=("$(flag gateway-initial-tablet-timeout)" 10s)
has_flag log-level && version_flags+=(--log-level warn)
# setsid: the cluster gets its own process group, so down.sh can stop exactly what we started.
# setsid and setpriv exec, so $! is vttestserver's own pid.
setsid "${as_user[@]}" env HOME="$VITESS_CDC_RUN" "$VTROOT/bin/vttestserver" \
  "$(flag port)" "$VT_BASE_PORT" \
  "$(flag keyspaces)" commerce,customer,strict "$(flag num-shards)" 1,2,3 \
  "$(flag replica-count)" 1 "$(flag rdonly-count)" 0 \
  "$(flag mysql-bind-host)" 127.0.0.1 "$(flag vtcombo-bind-host)" 127.0.0.1 "$(flag grpc-bind-address)" 127.0.0.1 \
  "$(flag schema-dir)" "$HERE/schema" \
  "$(flag vschema-ddl-authorized-users)" '%' \
  "$(flag data-dir)" "$VT_DATA_DIR" \
  "${version_flags[@]}" \
  > "$VT_LOG" 2>&1 < /dev/null &
pid=$!
echo "$pid" > "$VT_PID_FILE"

while :; do
  if ! kill -0 "$pid" 2> /dev/null; then
    rm -f "$VT_PID_FILE"
    echo "up: vttestserver exited during startup; last lines of $VT_LOG:" >&2
    tail -n 25 "$VT_LOG" >&2
    exit 1
  fi
  if cluster_ready; then break; fi
  if [ $((SECONDS - t0)) -ge "$UP_TIMEOUT" ]; then
    echo "up: not ready after ${UP_TIMEOUT}s; stopping it. Last lines of $VT_LOG:" >&2
    tail -n 25 "$VT_LOG" >&2
    bash "$HERE/down.sh" >&2 || true
    exit 1
  fi
  sleep 0.5
done
echo "up: ready in $((SECONDS - t0))s (pid $pid): VTGate gRPC $VTGATE_GRPC_ADDR, VTGate MySQL 127.0.0.1:$VTGATE_MYSQL_PORT, keyspaces commerce (unsharded), customer (-80, 80-), strict (-55, 55-aa, aa-)"
