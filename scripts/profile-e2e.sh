#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Where the connector's time goes (docs/benchmarks.md, "Profiling a run"): one run of the end-to-end
# benchmark's copy scenario (PROFILE_ROWS rows of bench_copy, PROFILE_CONSUMER sql or
# datastream) with the JVM under JFR (Java threads: method samples) and the whole process under
# `perf record` (every thread, native code resolved; JIT-compiled Java shows as one bucket).
# Prints, per thread, its share of the samples and its hottest functions; keeps the raw files in
# PROFILE_DIR (default target/profile-e2e: perf.data, run.jfr, the two reports).
#
# One command from a clean clone, like scripts/bench-e2e.sh (its cluster and build variables,
# scripts/bench-common.sh). Needs `perf` (Debian: linux-perf) and perf_event_paranoid <= 2.
# PROFILE_CALL_GRAPH=dwarf records call stacks too (larger perf.data): then
# `perf report -i <dir>/perf.data --comm vitess-cdc-work --children` shows who calls what (the
# kernel keeps 15 characters of a thread name).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-common.sh
source "$REPO/scripts/bench-common.sh"

ROWS=${PROFILE_ROWS:-500000}
CONSUMER=${PROFILE_CONSUMER:-sql}
OUT_DIR=${PROFILE_DIR:-$REPO/target/profile-e2e}
KEYSPACE=customer
say() { echo "profile-e2e: $*" >&2; }
command -v perf > /dev/null || { say "perf is missing (Debian: apt-get install linux-perf)"; exit 1; }

if [ "$PROFILE" = dev ]; then profile_dir=debug; else profile_dir=$PROFILE; fi
BENCH_BIN=$CARGO_TARGET_DIR/$profile_dir/vitess-cdc-bench
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
  (cd "$REPO" && cargo build -q --profile "$PROFILE" -p vitess-cdc-cli --bin vitess-cdc-bench)
fi
bench_build_jvm
CLASSPATH_JVM=$(bench_classpath)
trap bench_cleanup EXIT
bench_cluster_up

mkdir -p "$OUT_DIR"
rm -rf "$OUT_DIR/perf.data" "$OUT_DIR/run.jfr" "$OUT_DIR/jvm-tmp"
# The JVM halts at the end, so Flink's unpacked files (≈ 70 MB) stay behind unless they are here.
mkdir -p "$OUT_DIR/jvm-tmp"
say "loading $ROWS rows into bench_copy"
"$BENCH_BIN" --address "$VTGATE_GRPC_ADDR" --mysql-port "$VTGATE_MYSQL_PORT" --keyspace "$KEYSPACE" \
  --e2e load --table bench_copy --e2e-shape narrow --e2e-rows "$ROWS"

say "$CONSUMER copy of $ROWS rows under JFR and perf"
# The library straight from cargo's output: the copy the jar extracts is unlinked once loaded,
# and perf cannot resolve the symbols of a deleted file.
native_lib=$CARGO_TARGET_DIR/$profile_dir/libvitess_cdc_jni.so
java -Xmx1g "-Dvitesscdc.native.library=$native_lib" -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -XX:+PreserveFramePointer \
  "-Djava.io.tmpdir=$OUT_DIR/jvm-tmp" "-XX:StartFlightRecording=settings=profile" "-Dbench.jfr=$OUT_DIR/run.jfr" \
  -cp "$CLASSPATH_JVM" io.vitesscdc.bench.BenchMain --consumer "$CONSUMER" --scenario copy \
  --vtgate "$VTGATE_GRPC_ADDR" --keyspace "$KEYSPACE" --table bench_copy --events "$ROWS" \
  > "$OUT_DIR/run.json" 2> "$OUT_DIR/run.err" &
java_pid=$!
perf record -q -F 499 ${PROFILE_CALL_GRAPH:+--call-graph "$PROFILE_CALL_GRAPH"} -p "$java_pid" -o "$OUT_DIR/perf.data" 2> "$OUT_DIR/perf.err" &
perf_pid=$!
wait "$java_pid" || { say "the run failed:"; tail -20 "$OUT_DIR/run.err" >&2; exit 1; }
kill -INT "$perf_pid" 2> /dev/null || true
wait "$perf_pid" 2> /dev/null || true
rm -rf "$OUT_DIR/jvm-tmp"

perf report -i "$OUT_DIR/perf.data" --stdio --no-children --sort comm,dso,sym --field-separator=$'\t' 2> /dev/null \
  > "$OUT_DIR/perf.txt"
jfr print --events jdk.ExecutionSample --stack-depth 1 "$OUT_DIR/run.jfr" > "$OUT_DIR/jfr.txt"
python3 "$REPO/scripts/profile_report.py" "$OUT_DIR/perf.txt" "$OUT_DIR/jfr.txt" "$OUT_DIR/run.json"
