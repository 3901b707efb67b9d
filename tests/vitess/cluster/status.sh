#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Tells whether the multi-process cluster runs, what each of its processes is, and what serves.
# Exit code: 0 running and ready, 1 not running, 2 running but not ready.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

mapfile -t pids < <(cluster_pids)
if [ ${#pids[@]} -eq 0 ]; then
  echo "cluster status: not running"
  exit 1
fi
echo "cluster status: ${#pids[@]} processes, $(cluster_rss_mib) MiB resident (run dir $VT_CLUSTER_RUN)"
for f in "$PIDS_DIR"/*.pid "$VT_CLUSTER_RUN"/vt_*/mysql.pid; do
  [ -f "$f" ] || continue
  name=$(basename "$f" .pid)
  [ "$name" = mysql ] && name="mysqld-$(basename "$(dirname "$f")")"
  if pid=$(live_pid "$f"); then
    printf '  %-26s pid %-8s %6s MiB\n' "$name" "$pid" $(($(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status") / 1024))
  else
    printf '  %-26s not running (stale pid file)\n' "$name"
  fi
done
if ! cluster_ready; then
  echo "cluster status: running but not ready; logs in $LOGS_DIR"
  exit 2
fi
echo "  VTGate gRPC        $VT_CLUSTER_GRPC_ADDR (plaintext), MySQL 127.0.0.1:$VT_CLUSTER_MYSQL_PORT"
echo "  VTGate TLS+auth    $VT_CLUSTER_TLS_GRPC_ADDR  (CA $VT_CLUSTER_TLS_CA, user $VT_CLUSTER_TLS_USER)"
echo "  VTGate mTLS+auth   $VT_CLUSTER_MTLS_GRPC_ADDR (client cert $VT_CLUSTER_TLS_CLIENT_CERT)"
echo "  vtctld             $VT_CLUSTER_VTCTLD_ADDR (tests/vitess/cluster/ctl.sh runs vtctldclient on it)"
vt_cluster_ctl GetTablets
