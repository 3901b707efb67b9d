# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Shared by the benchmark scripts (bench-e2e.sh, bench-huge-txn.sh): their own vttestserver on
# non-default ports, so a benchmark never meets the test cluster, and the JVM module's build.
# Source it after setting REPO; then bench_cluster_up, and bench_cleanup from the EXIT trap.
#
# Env: VT_BASE_PORT (default 17990; the run dir is $VITESS_CDC_CACHE/run-bench unless
# VITESS_CDC_RUN is given), BENCH_USE_RUNNING=1 (use the cluster that tests/vitess/env.sh
# describes instead of starting one), BENCH_PROFILE (cargo profile, default release),
# BENCH_TARGET=cluster (the running multi-process cluster of tests/vitess/cluster/env.sh instead),
# BENCH_SKIP_BUILD=1, KEEP_CLUSTER=1, BENCH_PIN=SERVER_CPUS:CONSUMER_CPUS (bench_pin_server).
export VT_BASE_PORT=${VT_BASE_PORT:-17990}
bench_run_dir_given=${VITESS_CDC_RUN:-}
# shellcheck source=../tests/vitess/env.sh
source "$REPO/tests/vitess/env.sh"
# shellcheck source=../tests/vitess/lib.sh
source "$REPO/tests/vitess/lib.sh"
if [ -z "$bench_run_dir_given" ] && [ "${BENCH_USE_RUNNING:-0}" != 1 ]; then
  export VITESS_CDC_RUN=$VITESS_CDC_CACHE/run-bench
  # shellcheck source=../tests/vitess/env.sh
  source "$REPO/tests/vitess/env.sh"
fi
if [ "${BENCH_TARGET:-vttestserver}" = cluster ]; then
  # The multi-process cluster (one mysqld per tablet) that scripts/bench-scale.sh started with
  # its VT_CLUSTER_* settings: the benchmark's VTGate is that cluster's plaintext gate.
  # shellcheck source=../tests/vitess/cluster/env.sh
  source "$REPO/tests/vitess/cluster/env.sh"
  export VTGATE_GRPC_ADDR=$VT_CLUSTER_GRPC_ADDR VTGATE_MYSQL_PORT=$VT_CLUSTER_MYSQL_PORT
fi
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$VITESS_CDC_CACHE/cargo-target}
PROFILE=${BENCH_PROFILE:-release}
BENCH_MODULE=$REPO/java/vitess-cdc-bench

# The JVM consumers (and the connector's native library inside them), built with PROFILE.
bench_build_jvm() {
  [ "${BENCH_SKIP_BUILD:-0}" = 1 ] && return 0
  (cd "$REPO" && mvn -B -q -ntp "-Dcargo.target.dir=$CARGO_TARGET_DIR" "-Dcargo.profile=$PROFILE" \
    -Dnative.cross.skip=true -DskipTests package -pl java/vitess-cdc-bench -am)
}
bench_classpath() {
  echo "$BENCH_MODULE/target/classes:$(cat "$BENCH_MODULE/target/classpath.txt")"
}

bench_cluster_started=0
bench_cluster_up() {
  if [ "${BENCH_TARGET:-vttestserver}" = cluster ]; then
    port_in_use "$VT_CLUSTER_GRPC_PORT" || {
      echo "no multi-process cluster at $VT_CLUSTER_GRPC_ADDR (BENCH_TARGET=cluster): start it with tests/vitess/cluster/up.sh" >&2
      exit 1
    }
  elif [ "${BENCH_USE_RUNNING:-0}" = 1 ]; then
    bash "$REPO/tests/vitess/status.sh" > /dev/null || {
      echo "no cluster at $VTGATE_GRPC_ADDR (BENCH_USE_RUNNING=1)" >&2
      exit 1
    }
  else
    bash "$REPO/tests/vitess/install.sh"
    bash "$REPO/tests/vitess/up.sh"
    bench_cluster_started=1
  fi
}
# The shards of the benchmark's keyspace (customer), one per line, as VTGate serves them.
bench_shards() {
  vt_mysql -N -e "SHOW VITESS_SHARDS" 2> /dev/null | sed -n 's:^customer/::p'
}
# BENCH_PIN=SERVER_CPUS:CONSUMER_CPUS (taskset CPU lists, e.g. 0:1): Vitess on cores of its own,
# as in production, and each consumer on the others, so a consumer's CPU is never taken from the
# server: what a consumer keeps up with is then what the server can send (docs/benchmarks.md,
# "The server on a core of its own"). bench_pin_server pins every process of the benchmark's
# cluster (their command lines name its run directory) and their threads; bench_unpin_server
# gives them every CPU back; ON_CONSUMER_CPUS / ON_SERVER_CPUS prefix a command.
ON_CONSUMER_CPUS=()
ON_SERVER_CPUS=()
if [ -n "${BENCH_PIN:-}" ]; then
  [[ "$BENCH_PIN" =~ ^[0-9,-]+:[0-9,-]+$ ]] \
    || { echo "BENCH_PIN: '$BENCH_PIN' is not SERVER_CPUS:CONSUMER_CPUS, e.g. 0:1" >&2; exit 1; }
  command -v taskset > /dev/null || { echo "BENCH_PIN needs taskset (Debian: util-linux)" >&2; exit 1; }
  ON_SERVER_CPUS=(taskset -c "${BENCH_PIN%%:*}")
  ON_CONSUMER_CPUS=(taskset -c "${BENCH_PIN#*:}")
fi
bench_cluster_pids() {
  local run=$VITESS_CDC_RUN
  [ "${BENCH_TARGET:-vttestserver}" = cluster ] && run=$VT_CLUSTER_RUN
  pgrep -f -- "$run/" || true
}
bench_pin_cpus() {
  local cpus=$1 p n=0
  for p in $(bench_cluster_pids); do
    taskset -a -p -c "$cpus" "$p" > /dev/null 2>&1 && n=$((n + 1))
  done
  echo "$n"
}
bench_pin_server() {
  [ -n "${BENCH_PIN:-}" ] || return 0
  local n
  n=$(bench_pin_cpus "${BENCH_PIN%%:*}")
  [ "$n" -gt 0 ] || { echo "BENCH_PIN: found no process of the cluster to pin" >&2; exit 1; }
  echo "bench: $n processes of the cluster on CPUs ${BENCH_PIN%%:*}, consumers on CPUs ${BENCH_PIN#*:}" >&2
}
bench_unpin_server() {
  [ -n "${BENCH_PIN:-}" ] || return 0
  bench_pin_cpus "0-$(($(nproc --all) - 1))" > /dev/null
}
bench_cleanup() {
  bench_unpin_server
  if [ "$bench_cluster_started" = 1 ] && [ "${KEEP_CLUSTER:-0}" != 1 ]; then
    bash "$REPO/tests/vitess/down.sh" > /dev/null || true
  fi
}
