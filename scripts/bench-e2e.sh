#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# The end-to-end benchmark (docs/benchmarks.md, "End to end"): the count-only raw VStream
# consumer (the floor), the connector in Flink through SQL (into blackhole) and the DataStream
# API (into a discarding sink), and Debezium's Vitess connector (embedded engine), on the same
# VTGate and the same data, each run in a process of its own, the consumers alternating.
#
# One command from a clean clone: builds what it needs (release), starts its own vttestserver on
# non-default ports (VT_BASE_PORT, default 17990; run dir $VITESS_CDC_CACHE/run-bench), loads the
# tables, runs every scenario BENCH_RUNS times per consumer, writes the runs and their medians to
# BENCH_OUT (default docs/benchmarks/e2e.json) and prints the table with ratios.
#
# Scenarios: copy (BENCH_COPY_ROWS rows, narrow 8-column table), wide (BENCH_WIDE_ROWS rows of a
# table with every type family), catchup (BENCH_CATCHUP_ROWS inserts replayed from a position
# saved before them), oltp (BENCH_OLTP_ROWS single-row transactions, each its own INSERT, replayed
# from a position saved before them: what an application's writes look like), latency (a writer
# at BENCH_RATE rows/s stamps each row; each consumer starts from now, warms up BENCH_WARMUP s,
# then samples commit -> emit for BENCH_WINDOW s),
# tables (the copy of BENCH_TABLES narrow tables, BENCH_TABLES_ROWS rows in all, read by one
# pattern; not in the default list).
#
# Consumers: floor, sql, datastream, debezium, and sql-datagen: the SQL job with Flink's datagen
# source instead of vitess-cdc, copy scenario only: Flink's own time to the first record, so the
# report can tell the connector's share of it.
#
# Env: BENCH_QUICK=1 (tiny sizes, one run: a smoke), BENCH_RUNS, BENCH_CONSUMERS (default
# "floor sql sql-datagen datastream debezium"), BENCH_SCENARIOS (default "copy wide catchup oltp latency"),
# BENCH_PROFILE (cargo profile, default release; dev reuses a test build), BENCH_JVM_OPTS (default
# -Xmx1g; e.g. add -XX:StartFlightRecording=...), BENCH_USE_RUNNING=1 (use the cluster that
# tests/vitess/env.sh describes instead of starting one), BENCH_TARGET=cluster (use the running
# multi-process cluster of tests/vitess/cluster/env.sh: scripts/bench-scale.sh), BENCH_SKIP_BUILD=1,
# KEEP_CLUSTER=1, BENCH_PIN=0:1 (the cluster on CPU 0, each consumer on CPU 1: the server on a core
# of its own, as in production), BENCH_JIT_LOG=<dir> (each JVM run writes its HotSpot compilation log there, as
# <consumer>-<scenario>-<n>.xml; scripts/jit_window_report.py tells what the JIT did inside the run).
#
# A/B: BENCH_AB="before=/path/a.so after=jar" (labels of your choice) runs every JVM consumer
# once per variant, alternating within each round, as consumer@label (sql@before, sql@after, ...).
# A variant is `jar` (this build as it is), a native library (.so: scripts/build-native-at.sh
# <revision> builds a revision's) or a jar of the connector's Java classes put first on the
# classpath (.jar: scripts/build-native-at.sh <revision> classes). BENCH_NATIVE_AB is the same.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-common.sh
source "$REPO/scripts/bench-common.sh"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
  : "${BENCH_RUNS:=1}" "${BENCH_COPY_ROWS:=3000}" "${BENCH_WIDE_ROWS:=1000}" "${BENCH_CATCHUP_ROWS:=3000}" "${BENCH_OLTP_ROWS:=1000}"
  : "${BENCH_WINDOW:=2}" "${BENCH_WARMUP:=1}" "${BENCH_RATE:=500}" "${BENCH_TABLES:=5}" "${BENCH_TABLES_ROWS:=1000}"
fi
RUNS=${BENCH_RUNS:-3}
COPY_ROWS=${BENCH_COPY_ROWS:-500000}
WIDE_ROWS=${BENCH_WIDE_ROWS:-100000}
CATCHUP_ROWS=${BENCH_CATCHUP_ROWS:-200000}
OLTP_ROWS=${BENCH_OLTP_ROWS:-50000}
RATE=${BENCH_RATE:-2000}
WARMUP=${BENCH_WARMUP:-30}
WINDOW=${BENCH_WINDOW:-15}
TABLES=${BENCH_TABLES:-200}
TABLES_ROWS=${BENCH_TABLES_ROWS:-200000}
CONSUMERS=(${BENCH_CONSUMERS:-floor sql sql-datagen datastream debezium})
declare -A NATIVE_LIB=() CLASSES_JAR=()
BENCH_AB=${BENCH_AB:-${BENCH_NATIVE_AB:-}}
if [ -n "$BENCH_AB" ]; then
  labels=()
  for pair in $BENCH_AB; do
    label=${pair%%=*} lib=${pair#*=}
    [ "$label" != "$pair" ] && { [ "$lib" = jar ] || { [ -f "$lib" ] && [[ $lib == *.so || $lib == *.jar ]]; }; } \
      || { echo "BENCH_AB: '$pair' is not label=jar, label=<existing .so> or label=<existing classes .jar>" >&2; exit 1; }
    NATIVE_LIB[$label]= CLASSES_JAR[$label]=
    if [[ $lib == *.so ]]; then
      NATIVE_LIB[$label]=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
    elif [[ $lib == *.jar ]]; then
      CLASSES_JAR[$label]=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
    fi
    labels+=("$label")
  done
  ab=()
  for c in "${CONSUMERS[@]}"; do
    if [ "$c" = floor ]; then ab+=(floor); else for l in "${labels[@]}"; do ab+=("$c@$l"); done; fi
  done
  CONSUMERS=("${ab[@]}")
fi
SCENARIOS=(${BENCH_SCENARIOS:-copy wide catchup oltp latency})
JVM_OPTS=(${BENCH_JVM_OPTS:--Xmx1g})
OUT=${BENCH_OUT:-$REPO/docs/benchmarks/e2e.json}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-e2e.XXXXXX")
mkdir -p "$WORK/jvm-tmp"
RESULTS=$WORK/runs.jsonl
KEYSPACE=customer
PER_RUN_TIMEOUT=${BENCH_RUN_TIMEOUT:-900}

say() { echo "bench-e2e: $*" >&2; }

if [ "$PROFILE" = dev ]; then profile_dir=debug; else profile_dir=$PROFILE; fi
BENCH_BIN=$CARGO_TARGET_DIR/$profile_dir/vitess-cdc-bench
VSTREAM_BIN=$CARGO_TARGET_DIR/$profile_dir/vstream
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
  say "building the Rust consumers and loaders ($PROFILE) and the JVM consumers"
  (cd "$REPO" && cargo build -q --profile "$PROFILE" -p vitess-cdc-cli --bin vitess-cdc-bench --bin vstream)
fi
bench_build_jvm
CLASSPATH_JVM=$(bench_classpath)

cleanup() {
  [ -n "${writer_pid:-}" ] && kill "$writer_pid" 2> /dev/null || true
  bench_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT
bench_cluster_up
bench_pin_server

bench() { "$BENCH_BIN" --address "$VTGATE_GRPC_ADDR" --mysql-port "$VTGATE_MYSQL_PORT" --keyspace "$KEYSPACE" "$@"; }
has_scenario() { [[ " ${SCENARIOS[*]} " == *" $1 "* ]]; }
if has_scenario copy; then
  say "loading: $COPY_ROWS narrow rows"
  bench --e2e load --table bench_copy --e2e-shape narrow --e2e-rows "$COPY_ROWS"
fi
if has_scenario wide; then
  say "loading: $WIDE_ROWS wide rows"
  bench --e2e load --table bench_wide --e2e-shape wide --e2e-rows "$WIDE_ROWS"
fi
bench --e2e load --table bench_catchup --e2e-shape narrow --e2e-rows 0
has_scenario oltp && bench --e2e load --table bench_oltp --e2e-shape narrow --e2e-rows 0
has_scenario latency && bench --e2e load --table bench_latency --e2e-shape narrow --e2e-rows 0
if has_scenario tables; then
  say "loading: $TABLES tables of $((TABLES_ROWS / TABLES)) rows"
  for ((t = 0; t < TABLES; t++)); do
    bench --e2e load --table "$(printf 'bench_t%03d' "$t")" --e2e-shape narrow --e2e-rows $((TABLES_ROWS / TABLES)) \
      --e2e-first-id $((t * (TABLES_ROWS / TABLES))) 2>> "$WORK/load-tables.log" \
      || { tail -5 "$WORK/load-tables.log" >&2; exit 1; }
  done
fi
"$VSTREAM_BIN" positions --address "$VTGATE_GRPC_ADDR" --keyspace "$KEYSPACE" --tables bench_catchup > "$WORK/catchup-start.json"
say "catch-up: $CATCHUP_ROWS inserts after the saved position $(tr -d '\n' < "$WORK/catchup-start.json" | cut -c1-160)"
has_scenario catchup && bench --e2e load --table bench_catchup --e2e-shape narrow --e2e-rows "$CATCHUP_ROWS" --e2e-append
# Saved after the catch-up's inserts, so that scenario's consumers reach their count before these.
if has_scenario oltp; then
  "$VSTREAM_BIN" positions --address "$VTGATE_GRPC_ADDR" --keyspace "$KEYSPACE" --tables bench_oltp > "$WORK/oltp-start.json"
  say "oltp: $OLTP_ROWS single-row transactions after the saved position"
  bench --e2e load --table bench_oltp --e2e-shape narrow --e2e-rows "$OLTP_ROWS" --e2e-txn-rows 1 --e2e-append
fi

# One run of CONSUMER in SCENARIO; appends its JSON line (with the load average) to $RESULTS.
run_one() {
  local consumer=${1%%@*} label= scenario=$2 table shape=narrow events start=initial line
  # The JVM halts once its figures are out, so Flink never deletes what it unpacked (the
  # planner's jar, the MiniCluster's directories, ≈ 70 MB a run): it goes in WORK, which goes.
  local jvm_opts=("${JVM_OPTS[@]}" "-Djava.io.tmpdir=$WORK/jvm-tmp") classpath=$CLASSPATH_JVM
  if [ -n "${BENCH_JIT_LOG:-}" ] && [ "$consumer" != floor ]; then
    mkdir -p "$BENCH_JIT_LOG"
    jit_runs=$((${jit_runs:-0} + 1))
    jvm_opts+=(-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation
      "-XX:LogFile=$BENCH_JIT_LOG/${1//@/-}-$scenario-$jit_runs.xml")
  fi
  if [ "$1" != "$consumer" ]; then
    label=${1#*@}
    if [ -n "${NATIVE_LIB[$label]}" ]; then
      jvm_opts+=("-Dvitesscdc.native.library=${NATIVE_LIB[$label]}")
    fi
    if [ -n "${CLASSES_JAR[$label]}" ]; then
      classpath=${CLASSES_JAR[$label]}:$classpath
    fi
  fi
  case $scenario in
    copy) table=bench_copy events=$COPY_ROWS ;;
    wide) table=bench_wide events=$WIDE_ROWS shape=wide ;;
    catchup) table=bench_catchup events=$CATCHUP_ROWS start=@$WORK/catchup-start.json ;;
    oltp) table=bench_oltp events=$OLTP_ROWS start=@$WORK/oltp-start.json ;;
    latency) table=bench_latency events=0 start=latest ;;
    tables) table='/bench_t[0-9]+/' events=$(((TABLES_ROWS / TABLES) * TABLES)) ;;
  esac
  # Flink's own start-up (the datagen baseline) is measured once, beside the copy.
  [ "$consumer" = sql-datagen ] && [ "$scenario" != copy ] && return 0
  local window=0
  [ "$scenario" = latency ] && window=$WINDOW
  local load_before
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  if [ "$consumer" = floor ]; then
    line=$("${ON_CONSUMER_CPUS[@]}" timeout "$PER_RUN_TIMEOUT" "$BENCH_BIN" --e2e floor --address "$VTGATE_GRPC_ADDR" --keyspace "$KEYSPACE" \
      --table "$table" --e2e-rows "$events" --e2e-start "$start" --e2e-scenario "$scenario" \
      --e2e-warmup "$WARMUP" --e2e-window "$window" | tail -1)
  else
    line=$("${ON_CONSUMER_CPUS[@]}" java "${jvm_opts[@]}" -cp "$classpath" io.vitesscdc.bench.BenchMain --consumer "$consumer" \
      --scenario "$scenario" --vtgate "$VTGATE_GRPC_ADDR" --keyspace "$KEYSPACE" --table "$table" \
      --shape "$shape" --events "$events" --start "$start" --warmup "$WARMUP" --window "$window" \
      --timeout "$PER_RUN_TIMEOUT" 2> "$WORK/$1-$scenario.err" | tail -1) || {
      say "$1 $scenario failed; its stderr:"; tail -20 "$WORK/$1-$scenario.err" >&2; return 1; }
  fi
  # An A/B run is reported under its label.
  if [ -n "$label" ]; then line=$(jq -c --arg c "$1" '.consumer = $c' <<< "$line"); fi
  jq -c --arg load "$load_before" --arg load_after "$(cut -d' ' -f1-3 /proc/loadavg)" \
    '. + {loadavg_before: $load, loadavg_after: $load_after}' <<< "$line" >> "$RESULTS"
  jq -r '"bench-e2e: \(.scenario) \(.consumer): \(.events) events, \(.events_per_s|floor) ev/s, CPU \(.cpu_s|.*100|round/100) s, first record after \(.process_to_first_s|.*100|round/100) s" + (if .latency_p50_ms then ", latency p50 \(.latency_p50_ms) ms p99 \(.latency_p99_ms) ms" else "" end)' <<< "$line" >&2
}

for scenario in "${SCENARIOS[@]}"; do
  if [ "$scenario" = latency ]; then
    # The binary itself in the background (not the `bench` function, whose subshell would die
    # on the kill below and leave the writer writing until the cluster stops).
    "${ON_SERVER_CPUS[@]}" "$BENCH_BIN" --address "$VTGATE_GRPC_ADDR" --mysql-port "$VTGATE_MYSQL_PORT" --keyspace "$KEYSPACE" \
      --e2e write --table bench_latency --e2e-shape narrow --e2e-rate "$RATE" --writer-batch 10 \
      --e2e-seconds 100000 &
    writer_pid=$!
    sleep 2
  fi
  for ((r = 0; r < RUNS; r++)); do
    # Rotate the order every round, so the machine's load hits every consumer alike.
    n=${#CONSUMERS[@]}
    for ((i = 0; i < n; i++)); do
      run_one "${CONSUMERS[$(((i + r) % n))]}" "$scenario"
    done
  done
  if [ "$scenario" = latency ]; then kill "$writer_pid"; wait "$writer_pid" 2> /dev/null || true; writer_pid=; fi
done

mkdir -p "$(dirname "$OUT")"
python3 "$REPO/scripts/bench_e2e_report.py" "$RESULTS" "$OUT" \
  --meta "runs=$RUNS" "copy_rows=$COPY_ROWS" "wide_rows=$WIDE_ROWS" "catchup_rows=$CATCHUP_ROWS" "oltp_rows=$OLTP_ROWS" \
  "latency_rate=$RATE" "latency_window_s=$WINDOW" "tables=$TABLES" "tables_rows=$TABLES_ROWS" \
  "target=${BENCH_TARGET:-vttestserver}" "pin=${BENCH_PIN:-}" "shards=$(bench_shards | xargs)" "cargo_profile=$PROFILE" "jvm_opts=${JVM_OPTS[*]}" \
  "vitess=$VITESS_VERSION" "java=$(java -version 2>&1 | head -1)" "rustc=$(rustc --version)" \
  "debezium=$(sed -n 's:.*<debezium.version>\(.*\)</debezium.version>.*:\1:p' "$BENCH_MODULE/pom.xml")" \
  "flink=$(sed -n 's:.*<flink.version>\(.*\)</flink.version>.*:\1:p' "$REPO/pom.xml" | head -1)" \
  --expect "${CONSUMERS[*]}" --scenarios "${SCENARIOS[*]}"
