#!/usr/bin/env bash
# Sets up everything on a fresh machine and runs the demo: a local Vitess with a sharded
# `customer` keyspace, a load generator writing inserts, updates and deletes, and vitess-cdc
# tailing the table (initial snapshot, then every change) while it happens.
# Env: DEMO_SECONDS (default 30), DEMO_RATE writes/s (default 5), KEEP_CLUSTER=1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"
check_toolchain
DEMO_SECONDS=${DEMO_SECONDS:-30}
DEMO_RATE=${DEMO_RATE:-5}
trap 'stop_cluster_if_started_here' EXIT

step "install local Vitess" bash tests/vitess/install.sh
step "start local Vitess" ensure_cluster
step "build the vstream CLI" cargo build --release -q -p vitess-cdc-cli

echo "==> seeding 5 rows, then writing ~$DEMO_RATE changes/s for ${DEMO_SECONDS}s while vitess-cdc tails customer.customer"
bash tests/vitess/loadgen.sh --count 5 > /dev/null
bash tests/vitess/loadgen.sh --rate "$DEMO_RATE" --duration "$DEMO_SECONDS" &
loadgen=$!
"$CARGO_TARGET_DIR/release/vstream" tail --address "$VTGATE_GRPC_ADDR" --keyspace customer \
  --tables customer --idle-exit-secs 5
wait $loadgen
echo "==> rows in Vitess now:"
vt_mysql -D customer -e 'SELECT COUNT(*) AS rows_in_customer, SUM(visits) AS total_visits FROM customer'
