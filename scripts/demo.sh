#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Sets up everything on a fresh machine and runs the demo: a local Vitess with a sharded
# `customer` keyspace, a load generator writing inserts, updates and deletes, and a Flink SQL job
# ('connector' = 'vitess-cdc') keeping a materialized copy of customer.customer in sync while it
# happens. Every 3 s the demo prints the copy's latest rows; at the end it compares the whole copy
# with SELECT * through VTGate and exits non-zero if they differ.
# Env: DEMO_SECONDS (default 30), DEMO_RATE writes/s (default 5), DEMO_CARGO_PROFILE (default
# release; the test command passes dev, which its Maven build has built already), KEEP_CLUSTER=1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"
check_toolchain
DEMO_SECONDS=${DEMO_SECONDS:-30}
DEMO_RATE=${DEMO_RATE:-5}
DEMO_CARGO_PROFILE=${DEMO_CARGO_PROFILE:-release}
trap 'stop_cluster_if_started_here' EXIT

step "install local Vitess" bash tests/vitess/install.sh
step "start local Vitess" ensure_cluster
step "build the connector (Rust core inside the jar) and the demo" \
  "${MVN[@]}" package -DskipTests -Dnative.cross.skip=true -Dcargo.profile="$DEMO_CARGO_PROFILE" -pl java/vitess-cdc-demo -am

echo "==> seeding 20 rows, then writing ~$DEMO_RATE changes/s for ${DEMO_SECONDS}s while the Flink SQL job keeps a copy in sync"
bash tests/vitess/loadgen.sh --count 20 > /dev/null
bash tests/vitess/loadgen.sh --rate "$DEMO_RATE" --duration "$DEMO_SECONDS" &
loadgen=$!
demo_rc=0
java -cp "java/vitess-cdc-demo/target/classes:$(cat java/vitess-cdc-demo/target/classpath.txt)" \
  io.vitesscdc.demo.SqlSyncDemo --vtgate "$VTGATE_GRPC_ADDR" --mysql-port "$VTGATE_MYSQL_PORT" \
  --seconds "$DEMO_SECONDS" || demo_rc=$?
wait $loadgen
exit $demo_rc
