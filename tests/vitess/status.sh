#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Tells whether the local Vitess test cluster runs, where, and what it serves.
# Exit code: 0 running and ready, 1 not running, 2 running but not ready.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

if ! pid=$(cluster_pid); then
  echo "status: not running"
  [ -f "$VT_PID_FILE" ] && echo "status: stale pid file $VT_PID_FILE (up.sh or down.sh will remove it)"
  exit 1
fi
if ! cluster_ready; then
  echo "status: running (pid $pid) but not ready; log: $VT_LOG"
  exit 2
fi
echo "status: running (pid $pid, mysqld pid $(mysqld_pid || echo '?'))"
echo "  VTGate gRPC   $VTGATE_GRPC_ADDR"
echo "  VTGate MySQL  127.0.0.1:$VTGATE_MYSQL_PORT   (any user, no password)"
echo "  vtcombo HTTP  http://127.0.0.1:$VTGATE_HTTP_PORT/debug/status"
echo "  data, logs    $VITESS_CDC_RUN"
vt_mysql -e "SHOW VITESS_SHARDS"
