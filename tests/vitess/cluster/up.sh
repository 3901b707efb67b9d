#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Starts the multi-process local Vitess cluster from nothing: etcd (topology), vtctld, for every
# tablet of VT_CLUSTER_TABLETS a mysqld (mysqlctl) and a vttablet, a PRIMARY elected per shard
# with PlannedReparentShard, the schemas and vschemas of tests/vitess/schema/{commerce,customer},
# and three VTGates: plaintext (gRPC + MySQL), TLS + static auth, mutual TLS + static auth, with
# a CA and certificates generated here (openssl).
# Returns once the plaintext VTGate serves every shard and the TLS gates listen. Each start is
# fresh; what a previous run left running (stale pids, a mysqld, sockets) is stopped first.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
# shellcheck source=tablets.sh
source "$HERE/tablets.sh"

T0=$SECONDS
UP_TIMEOUT=${VT_CLUSTER_UP_TIMEOUT:-180}

for b in etcd vtctld vtgate vttablet vtctldclient mysqlctl; do
  [ -x "$VTROOT/bin/$b" ] || die "$b is not installed ($VTROOT/bin/$b missing): run tests/vitess/cluster/install.sh first"
done
[ -x "$VT_MYSQL_ROOT/bin/mysqld" ] || die "MySQL is not installed: run tests/vitess/cluster/install.sh first"

if [ -d "$PIDS_DIR" ] && cluster_ready; then
  say "already running: VTGate gRPC $VT_CLUSTER_GRPC_ADDR, MySQL 127.0.0.1:$VT_CLUSTER_MYSQL_PORT. Stop it with tests/vitess/cluster/down.sh"
  exit 0
fi

# --- a clean slate ----------------------------------------------------------------------------
mkdir -p "$PIDS_DIR"
stop_everything
ports=("$ETCD_CLIENT_PORT" "$ETCD_PEER_PORT" "$VTCTLD_HTTP_PORT" "$VTCTLD_GRPC_PORT"
  "$VT_CLUSTER_VTGATE_HTTP_PORT" "$VT_CLUSTER_GRPC_PORT" "$VT_CLUSTER_MYSQL_PORT"
  "$VT_CLUSTER_TLS_HTTP_PORT" "$VT_CLUSTER_TLS_GRPC_PORT" "$VT_CLUSTER_TLS_MYSQL_PORT" "$VT_CLUSTER_MTLS_HTTP_PORT" "$VT_CLUSTER_MTLS_GRPC_PORT")
for t in $VT_CLUSTER_TABLETS; do
  uid=${t%%:*}
  ports+=("$(tablet_http_port "$uid")" "$(tablet_grpc_port "$uid")" "$(tablet_mysql_port "$uid")")
done
for port in "${ports[@]}"; do
  if port_in_use "$port"; then
    die "port $port is already in use by $(port_owner "$port"). Stop that process, or move the cluster with VT_CLUSTER_BASE_PORT=<n> (uses n..n+99)"
  fi
done
# Only what up.sh itself makes lives in the run dir, so it can go entirely.
rm -rf "$VT_CLUSTER_RUN"
mkdir -p "$PIDS_DIR" "$LOGS_DIR" "$VT_CLUSTER_RUN/etcd" "$VT_CLUSTER_RUN/tmp"
cp "$HERE/cluster.cnf" "$VT_CLUSTER_RUN/cluster.cnf"
bash "$HERE/certs.sh" "$VT_CLUSTER_CERTS" > "$LOGS_DIR/certs.log" 2>&1 || { cat "$LOGS_DIR/certs.log" >&2; die "generating certificates failed"; }
printf '[{"Username": "%s", "Password": "%s"}]\n' "$VT_CLUSTER_TLS_USER" "$VT_CLUSTER_TLS_PASSWORD" \
  > "$VT_CLUSTER_RUN/grpc_static_auth.json"
[ -z "$VT_RUN_AS" ] || chown -R "$VT_RUN_AS:" "$VT_CLUSTER_RUN"

# If anything below fails, leave nothing running.
trap 'rc=$?; if [ $rc != 0 ]; then echo "cluster up: failed; logs in $LOGS_DIR; stopping what was started" >&2; stop_everything >&2; fi' EXIT

# --- topology and vtctld ------------------------------------------------------------------------
start_daemon etcd "$VTROOT/bin/etcd" --name vitess-cdc --data-dir "$VT_CLUSTER_RUN/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "vitess-cdc=http://127.0.0.1:$ETCD_PEER_PORT" --log-level warn
wait_for etcd 30 http_ok "$ETCD_CLIENT_PORT" /health || die "etcd did not start; see $LOGS_DIR/etcd.log"

start_daemon vtctld "$VTROOT/bin/vtctld" "${TOPO_FLAGS[@]}" --cell "$VT_CLUSTER_CELL" \
  --service-map grpc-vtctl,grpc-vtctld --bind-address 127.0.0.1 --grpc-bind-address 127.0.0.1 \
  --port "$VTCTLD_HTTP_PORT" --grpc-port "$VTCTLD_GRPC_PORT" --pid-file "$VT_CLUSTER_RUN/tmp/vtctld.pid" \
  --log-format text
wait_for vtctld 60 http_ok "$VTCTLD_HTTP_PORT" || die "vtctld did not start; see $LOGS_DIR/vtctld.log"

vt_cluster_ctl AddCellInfo --root "/vitess/$VT_CLUSTER_CELL" --server-address "127.0.0.1:$ETCD_CLIENT_PORT" "$VT_CLUSTER_CELL"
for ks in $(keyspaces_of "$VT_CLUSTER_TABLETS"); do
  # No semi-sync: one replica per shard, and a PRIMARY must keep writing while its replica restarts.
  vt_cluster_ctl CreateKeyspace --durability-policy none "$ks" > /dev/null
done
say "topology: cell $VT_CLUSTER_CELL, keyspaces $(keyspaces_of "$VT_CLUSTER_TABLETS" | xargs)"

# --- tablets ----------------------------------------------------------------------------------
# reshard.sh gives new shards tablet groups never used before (see free_group there).
for t in $VT_CLUSTER_TABLETS; do echo $(($(spec_uid "$t") / 100)); done | sort -u > "$VT_CLUSTER_RUN/groups-used"
# shellcheck disable=SC2086 # one spec per word
start_tablets $VT_CLUSTER_TABLETS
elections=()
for shard in $(shards_of "$VT_CLUSTER_TABLETS"); do
  elect_primary "$shard" "$(first_tablet_of "$shard" "$VT_CLUSTER_TABLETS")" &
  elections+=($!)
  if [ ${#elections[@]} -ge "$VT_CLUSTER_PARALLEL" ]; then
    wait_all "electing primaries" "${elections[@]}"
    elections=()
  fi
done
wait_all "electing primaries" "${elections[@]}"
say "primaries elected"

for ks in $(keyspaces_of "$VT_CLUSTER_TABLETS"); do
  schema="$HERE/../schema/$ks"
  [ -d "$schema" ] || die "no schema folder $schema for keyspace $ks"
  for f in "$schema"/*.sql; do
    vt_cluster_ctl ApplySchema --sql-file "$f" "$ks" > /dev/null
  done
  vt_cluster_ctl ApplyVSchema --vschema-file "$schema/vschema.json" "$ks" > /dev/null
done
say "schemas and vschemas applied"

# --- gates ------------------------------------------------------------------------------------
start_plain_vtgate
start_vtgate vtgate-tls "$VT_CLUSTER_TLS_HTTP_PORT" "$VT_CLUSTER_TLS_GRPC_PORT" \
  --grpc-cert "$VT_CLUSTER_CERTS/server.pem" --grpc-key "$VT_CLUSTER_CERTS/server-key.pem" \
  --grpc-auth-mode static --grpc-auth-static-password-file "$VT_CLUSTER_RUN/grpc_static_auth.json" \
  --mysql-server-port "$VT_CLUSTER_TLS_MYSQL_PORT" --mysql-server-bind-address 127.0.0.1 --mysql-auth-server-impl none \
  --vschema-ddl-authorized-users %
start_vtgate vtgate-mtls "$VT_CLUSTER_MTLS_HTTP_PORT" "$VT_CLUSTER_MTLS_GRPC_PORT" \
  --grpc-cert "$VT_CLUSTER_CERTS/server.pem" --grpc-key "$VT_CLUSTER_CERTS/server-key.pem" \
  --grpc-ca "$VT_CLUSTER_TLS_CA" \
  --grpc-auth-mode static --grpc-auth-static-password-file "$VT_CLUSTER_RUN/grpc_static_auth.json"
wait_for "VTGates (plaintext, TLS, mTLS)" $((UP_TIMEOUT - (SECONDS - T0))) cluster_ready \
  || die "the VTGates are not serving after ${UP_TIMEOUT}s; see $LOGS_DIR/vtgate*.log"

trap - EXIT
say "ready in $((SECONDS - T0))s, $(cluster_rss_mib) MiB resident in $(cluster_pids | wc -l) processes"
say "VTGate gRPC $VT_CLUSTER_GRPC_ADDR (plaintext), MySQL 127.0.0.1:$VT_CLUSTER_MYSQL_PORT; TLS+auth $VT_CLUSTER_TLS_GRPC_ADDR (its MySQL port 127.0.0.1:$VT_CLUSTER_TLS_MYSQL_PORT, plaintext, for writers that must outlive a restart of the plaintext gate); mTLS+auth $VT_CLUSTER_MTLS_GRPC_ADDR; vtctld $VT_CLUSTER_VTCTLD_ADDR"
