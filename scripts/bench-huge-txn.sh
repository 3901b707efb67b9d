#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# The huge-transaction benchmark (docs/benchmarks.md, "Huge transactions"): one transaction of
# HUGE_ROWS rows of HUGE_ROW_BYTES bytes (default 1 Mi rows of 1 KiB: 1 GiB), and one of
# HUGE_BIG_ROWS rows near VTGate's gRPC message limit (default 16 rows of 15 MiB), each committed
# at once into an unsharded table while a Flink DataStream job (parallelism 1) streams it. Each
# runs with VTGate's transaction chunking (`transaction.chunk-size` 4 MiB: VTGate sends the
# transaction in pieces) and without it (0: VTGate sends it whole after COMMIT, the core hands it
# on in pieces of its buffer budget), twice: straight through, measuring the JVM's resident set
# (the native core's memory; the heap is fixed and pre-touched) and its live heap against their
# values before the transaction; and stopped with a savepoint half-way inside the transaction,
# then restored, counting every id that arrived twice or never.
#
# One command from a clean clone: builds what it needs, starts its own vttestserver on
# non-default ports (scripts/bench-common.sh), writes the runs to HUGE_OUT (default
# docs/benchmarks/huge-txn.json) and prints them. Exits non-zero when a row was lost or repeated.
#
# Env: BENCH_QUICK=1 (64 MiB and 4 big rows: a smoke), HUGE_ROWS, HUGE_ROW_BYTES, HUGE_BIG_ROWS,
# HUGE_BIG_ROW_BYTES, HUGE_CHUNK_SIZES (default "4mb 0"), HUGE_SAVEPOINT_AT (default "0 0.5": straight
# through, then the savepoint half-way), HUGE_BUFFER_SIZE (the source's buffer.size; empty: its
# default), BENCH_JVM_OPTS (default a fixed,
# pre-touched 512 MiB heap), and those of scripts/bench-common.sh.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-common.sh
source "$REPO/scripts/bench-common.sh"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
  : "${HUGE_ROWS:=65536}" "${HUGE_BIG_ROWS:=4}"
fi
ROWS=${HUGE_ROWS:-1048576}
ROW_BYTES=${HUGE_ROW_BYTES:-1024}
BIG_ROWS=${HUGE_BIG_ROWS:-16}
BIG_ROW_BYTES=${HUGE_BIG_ROW_BYTES:-15728640}
CHUNK_SIZES=(${HUGE_CHUNK_SIZES:-4mb 0})
SAVEPOINT_AT=(${HUGE_SAVEPOINT_AT:-0 0.5})
BUFFER_SIZE=${HUGE_BUFFER_SIZE:-}
JVM_OPTS=(${BENCH_JVM_OPTS:--Xms512m -Xmx512m -XX:+AlwaysPreTouch})
OUT=${HUGE_OUT:-$REPO/docs/benchmarks/huge-txn.json}
KEYSPACE=commerce
BENCH_USER=vitess_cdc_bench
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-huge-txn.XXXXXX")
mkdir -p "$WORK/jvm-tmp"
RESULTS=$WORK/runs.jsonl

say() { echo "bench-huge-txn: $*" >&2; }
cleanup() {
  bench_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT

say "building the JVM consumer ($PROFILE)"
bench_build_jvm
CLASSPATH_JVM=$(bench_classpath)
bench_cluster_up

# The transaction is written straight into the tablet's MySQL: through VTGate, a statement that
# runs longer than the tablet's query timeout (30 s) would be killed. vttestserver's MySQL users
# are local to its socket; a TCP user for the benchmark is made through it.
socket=$(find "$VT_DATA_DIR" -name mysql.sock -print -quit)
[ -S "$socket" ] || { say "no MySQL socket under $VT_DATA_DIR"; exit 1; }
mariadb --no-defaults -S "$socket" -u vt_dba -e "CREATE USER IF NOT EXISTS '$BENCH_USER'@'127.0.0.1';
  GRANT ALL ON \`vt_${KEYSPACE}_0\`.* TO '$BENCH_USER'@'127.0.0.1'"
WRITE_URL="jdbc:mysql://127.0.0.1:$VT_MYSQLD_PORT/vt_${KEYSPACE}_0?user=$BENCH_USER&useSSL=false&allowPublicKeyRetrieval=true"

run_one() {
  local shape=$1 rows=$2 row_bytes=$3 chunk=$4 savepoint_at=$5 line
  # The JVM halts at the end, so Flink's unpacked files stay behind unless they are in WORK.
  line=$(java "${JVM_OPTS[@]}" "-Djava.io.tmpdir=$WORK/jvm-tmp" -cp "$CLASSPATH_JVM" io.vitesscdc.bench.HugeTransactionBench \
    --vtgate "$VTGATE_GRPC_ADDR" --keyspace "$KEYSPACE" --table huge_txn --write-url "$WRITE_URL" \
    --rows "$rows" --row-bytes "$row_bytes" --transaction-chunk-size "$chunk" --buffer-size "$BUFFER_SIZE" \
    --savepoint-at "$savepoint_at" --savepoint-dir "$WORK/savepoints" \
    2> "$WORK/run.err" | tail -1) || {
    say "$shape chunk=$chunk savepoint-at=$savepoint_at failed; its stderr:"
    tail -30 "$WORK/run.err" >&2
    return 1
  }
  jq -c --arg shape "$shape" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
    '{shape: $shape} + . + {loadavg_after: $load}' <<< "$line" | tee -a "$RESULTS" >&2
}

for chunk in "${CHUNK_SIZES[@]}"; do
  for savepoint_at in "${SAVEPOINT_AT[@]}"; do
    run_one "$ROWS x $ROW_BYTES B" "$ROWS" "$ROW_BYTES" "$chunk" "$savepoint_at"
    run_one "$BIG_ROWS x $BIG_ROW_BYTES B" "$BIG_ROWS" "$BIG_ROW_BYTES" "$chunk" "$savepoint_at"
  done
done

mkdir -p "$(dirname "$OUT")"
jq -s --arg jvm "${JVM_OPTS[*]}" --arg vitess "$VITESS_VERSION" --arg profile "$PROFILE" \
  '{meta: {jvm_opts: $jvm, vitess: $vitess, cargo_profile: $profile}, runs: .}' "$RESULTS" > "$OUT"
echo
printf '%-22s %-6s %-9s %8s %8s %9s %9s %9s %8s %8s\n' transaction chunk savepoint MiB "MiB/s" \
  "RSS+ MiB" "heap+ MiB" "CPU s/Mr" missing repeated
jq -r '.runs[] | [.shape, .transaction_chunk_size,
    (if .savepoint_after_rows < 0 then "-" else (.savepoint_after_rows|tostring) end),
    .transaction_mib, .mib_per_s, .rss_growth_mib, .live_heap_growth_mib, .cpu_s_per_m_rows,
    .missing_rows, .repeated_rows] | @tsv' "$OUT" |
  while IFS=$'\t' read -r shape chunk sp mib rate rss heap cpu missing repeated; do
    printf '%-22s %-6s %-9s %8s %8s %9s %9s %9s %8s %8s\n' "$shape" "$chunk" "$sp" "$mib" "$rate" "$rss" \
      "$heap" "$cpu" "$missing" "$repeated"
  done
lost=$(jq '[.runs[] | .missing_rows + .repeated_rows + .foreign_rows] | add' "$OUT")
if [ "$lost" != 0 ]; then
  say "$lost rows lost, repeated or foreign across the runs"
  exit 1
fi
say "every row arrived exactly once in every run; written to $OUT"
