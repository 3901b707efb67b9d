# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Settings of the multi-process local Vitess cluster (etcd, vtctld, a mysqld + vttablet per
# tablet, vtgates). Source it: `source tests/vitess/cluster/env.sh`. It sources
# tests/vitess/env.sh for the install paths and leaves that file's VTGATE_* (the vttestserver
# cluster) alone: this cluster's addresses have their own VT_CLUSTER_* names, so both can run
# and be used side by side.
#
#   VT_CLUSTER_BASE_PORT  first of the 100 ports the default tablets use (default 16100, clear of
#                         vttestserver's 15990-15993); the layout is below
#   VT_CLUSTER_RUN        data, logs, pid files and certificates (default $VITESS_CDC_CACHE/cluster)

# shellcheck source=../env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../env.sh"

VT_CLUSTER_BASE_PORT=${VT_CLUSTER_BASE_PORT:-16100}
VT_CLUSTER_RUN=${VT_CLUSTER_RUN:-$VITESS_CDC_CACHE/cluster}
VT_CLUSTER_CELL=${VT_CLUSTER_CELL:-zone1}

# Port layout, all on 127.0.0.1: base+0..9 for the shared servers, base+20.. for the tablets.
ETCD_CLIENT_PORT=$VT_CLUSTER_BASE_PORT
ETCD_PEER_PORT=$((VT_CLUSTER_BASE_PORT + 1))
VTCTLD_HTTP_PORT=$((VT_CLUSTER_BASE_PORT + 2))
VTCTLD_GRPC_PORT=$((VT_CLUSTER_BASE_PORT + 3))
# The plaintext VTGate, without authentication: what most tests use.
export VT_CLUSTER_VTGATE_HTTP_PORT=$((VT_CLUSTER_BASE_PORT + 4))
export VT_CLUSTER_GRPC_PORT=$((VT_CLUSTER_BASE_PORT + 5))
export VT_CLUSTER_MYSQL_PORT=$((VT_CLUSTER_BASE_PORT + 6))
# A VTGate serving gRPC over TLS (server certificate only) with static authentication.
export VT_CLUSTER_TLS_HTTP_PORT=$((VT_CLUSTER_BASE_PORT + 7))
export VT_CLUSTER_TLS_GRPC_PORT=$((VT_CLUSTER_BASE_PORT + 8))
# ... and a plaintext MySQL port (no password): writers of tests that restart the plaintext gate.
export VT_CLUSTER_TLS_MYSQL_PORT=$((VT_CLUSTER_BASE_PORT + 9))
# A VTGate requiring mutual TLS (client certificates signed by the cluster CA) and static auth.
export VT_CLUSTER_MTLS_HTTP_PORT=$((VT_CLUSTER_BASE_PORT + 10))
export VT_CLUSTER_MTLS_GRPC_PORT=$((VT_CLUSTER_BASE_PORT + 11))

export VT_CLUSTER_GRPC_ADDR="127.0.0.1:$VT_CLUSTER_GRPC_PORT"
export VT_CLUSTER_TLS_GRPC_ADDR="127.0.0.1:$VT_CLUSTER_TLS_GRPC_PORT"
export VT_CLUSTER_MTLS_GRPC_ADDR="127.0.0.1:$VT_CLUSTER_MTLS_GRPC_PORT"
export VT_CLUSTER_VTCTLD_ADDR="127.0.0.1:$VTCTLD_GRPC_PORT"
export VT_CLUSTER_RUN

# Certificates up.sh generates (openssl), and the static-auth user of the TLS gates.
export VT_CLUSTER_CERTS="$VT_CLUSTER_RUN/certs"
export VT_CLUSTER_TLS_CA="$VT_CLUSTER_CERTS/ca.pem"
export VT_CLUSTER_TLS_CLIENT_CERT="$VT_CLUSTER_CERTS/client.pem"
export VT_CLUSTER_TLS_CLIENT_KEY="$VT_CLUSTER_CERTS/client-key.pem"
export VT_CLUSTER_TLS_USER=${VT_CLUSTER_TLS_USER:-cdc}
export VT_CLUSTER_TLS_PASSWORD=${VT_CLUSTER_TLS_PASSWORD:-cdc-secret}

# The tablets up.sh starts: uid:keyspace:shard, the first of each shard becomes its PRIMARY.
# A uid is 100*g + i (group g = 1..25, i = 0 or 1), so a group holds one shard's two tablets and
# its ports are fixed: slot = 2*(g-1) + i, HTTP base+20+3*slot, gRPC +1, mysqld +2.
VT_CLUSTER_TABLETS=${VT_CLUSTER_TABLETS:-"100:commerce:0 101:commerce:0 200:customer:-80 201:customer:-80 300:customer:80- 301:customer:80-"}

tablet_slot() { echo $((2 * ($1 / 100 - 1) + $1 % 100)); }
tablet_http_port() { echo $((VT_CLUSTER_BASE_PORT + 20 + 3 * $(tablet_slot "$1"))); }
tablet_grpc_port() { echo $(($(tablet_http_port "$1") + 1)); }
tablet_mysql_port() { echo $(($(tablet_http_port "$1") + 2)); }
tablet_alias() { printf '%s-%010d' "$VT_CLUSTER_CELL" "$1"; }
tablet_dir() { printf '%s/vt_%010d' "$VT_CLUSTER_RUN" "$1"; }

TOPO_FLAGS=(--topo-implementation etcd2 --topo-global-server-address "127.0.0.1:$ETCD_CLIENT_PORT"
  --topo-global-root /vitess/global)

# vtctldclient against this cluster's vtctld.
vt_cluster_ctl() { "$VTROOT/bin/vtctldclient" --server "$VT_CLUSTER_VTCTLD_ADDR" "$@"; }
# A mysql client on the plaintext VTGate's MySQL port (any user, no password; see vt_mysql).
vt_cluster_mysql() {
  mariadb --no-defaults -h 127.0.0.1 -P "$VT_CLUSTER_MYSQL_PORT" -u vitess-cdc "$@"
}
