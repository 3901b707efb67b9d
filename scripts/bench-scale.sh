#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# How the cost grows with the work (docs/benchmarks.md, "Growth with shards and tables"): for each
# shard count of BENCH_SHARDS, a multi-process Vitess is started from nothing with keyspace
# `customer` split into that many shards, one mysqld and one PRIMARY vttablet each (so no shard's
# stream reads another's binlog, as vttestserver's shared mysqld makes them do), and
# scripts/bench-e2e.sh runs against it: the copy and the catch-up, and the copy of BENCH_TABLES
# tables where the shard count is in BENCH_TABLES_AT, with the floor, SQL and DataStream consumers.
# The cluster is stopped before the next shard count; the runs of all of them are summarised in
# BENCH_OUT (docs/benchmarks/scale.json) and printed as one table.
#
# Env: BENCH_SHARDS (default "2 8 32 64"; powers of two up to 256), BENCH_TABLES_AT (default "2":
# a copy of 200 tables costs every shard 200 table copies), BENCH_CONSUMERS (default "floor sql
# datastream"), BENCH_SCENARIOS (default "copy catchup"; "tables" is added where BENCH_TABLES_AT
# says), BENCH_RUNS (default 2), BENCH_COPY_ROWS (500 000),
# BENCH_CATCHUP_ROWS (200 000), BENCH_TABLES (200), BENCH_TABLES_ROWS (200 000), BENCH_OUT,
# BENCH_SKIP_BUILD=1, KEEP_CLUSTER=1 (leave the last cluster running), and the cluster's own:
# VT_CLUSTER_BASE_PORT (default here 18100; 64 shards use base .. base+406), VT_CLUSTER_RUN
# (default $VITESS_CDC_CACHE/cluster-scale), VT_CLUSTER_PARALLEL.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export VT_CLUSTER_BASE_PORT=${VT_CLUSTER_BASE_PORT:-18100}
# shellcheck source=../tests/vitess/env.sh
source "$REPO/tests/vitess/env.sh"
export VT_CLUSTER_RUN=${VT_CLUSTER_RUN:-$VITESS_CDC_CACHE/cluster-scale}
export VT_CLUSTER_UP_TIMEOUT=${VT_CLUSTER_UP_TIMEOUT:-1800}
export BENCH_TARGET=cluster
export BENCH_CONSUMERS=${BENCH_CONSUMERS:-floor sql datastream}
export BENCH_RUNS=${BENCH_RUNS:-2}
# A fixed, pre-touched heap: the JVM's RSS beyond it is native memory (the library, threads,
# metaspace, code), whose growth with the shards is one of the figures.
export BENCH_JVM_OPTS=${BENCH_JVM_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch}
SHARD_COUNTS=(${BENCH_SHARDS:-2 8 32 64})
TABLES_AT=" ${BENCH_TABLES_AT:-2} "
SCENARIOS=${BENCH_SCENARIOS:-copy catchup}
OUT=${BENCH_OUT:-$REPO/docs/benchmarks/scale.json}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-scale.XXXXXX")

say() { echo "bench-scale: $*" >&2; }

# The N shard names of an even split of the keyspace range (N a power of two, at most 256).
shard_names() {
  local n=$1 step i lo hi
  case $n in 1 | 2 | 4 | 8 | 16 | 32 | 64 | 128 | 256) ;; *) say "shard count $n is not a power of two up to 256"; exit 2 ;; esac
  if [ "$n" = 1 ]; then echo 0; return; fi
  step=$((256 / n))
  for ((i = 0; i < n; i++)); do
    lo=$([ $i = 0 ] && echo "" || printf '%02x' $((i * step)))
    hi=$([ $i = $((n - 1)) ] && echo "" || printf '%02x' $(((i + 1) * step)))
    echo "$lo-$hi"
  done
}

# One PRIMARY tablet per shard (group g = 2.. : uid 100g), and commerce's one tablet (group 1).
tablet_specs() {
  local g=2 shard specs="100:commerce:0"
  for shard in $(shard_names "$1"); do
    specs+=" $((100 * g)):customer:$shard"
    g=$((g + 1))
  done
  echo "$specs"
}

cluster_started=0
cleanup() {
  if [ $cluster_started = 1 ] && [ "${KEEP_CLUSTER:-0}" != 1 ]; then
    bash "$REPO/tests/vitess/cluster/down.sh" > /dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

bash "$REPO/tests/vitess/cluster/install.sh" > "$WORK/install.log" 2>&1 || { cat "$WORK/install.log" >&2; exit 1; }
built=${BENCH_SKIP_BUILD:-0}
for n in "${SHARD_COUNTS[@]}"; do
  export VT_CLUSTER_TABLETS
  VT_CLUSTER_TABLETS=$(tablet_specs "$n")
  say "$n shards: starting the multi-process cluster ($(wc -w <<< "$VT_CLUSTER_TABLETS") tablets, a mysqld each)"
  t0=$SECONDS
  cluster_started=1
  bash "$REPO/tests/vitess/cluster/up.sh" > "$WORK/up-$n.log" 2>&1 || { tail -30 "$WORK/up-$n.log" >&2; exit 1; }
  say "$n shards: cluster up in $((SECONDS - t0)) s, $(tail -1 "$WORK/up-$n.log" | sed 's/.*\] //' | cut -c1-80)"
  scenarios=$SCENARIOS
  [[ "$TABLES_AT" == *" $n "* ]] && scenarios+=" tables"
  BENCH_SCENARIOS=$scenarios BENCH_SKIP_BUILD=$built BENCH_OUT="$WORK/scale-$n.json" \
    bash "$REPO/scripts/bench-e2e.sh"
  built=1
  if [ "$n" != "${SHARD_COUNTS[-1]}" ] || [ "${KEEP_CLUSTER:-0}" != 1 ]; then
    bash "$REPO/tests/vitess/cluster/down.sh" > /dev/null
    cluster_started=0
  fi
done

mkdir -p "$(dirname "$OUT")"
python3 "$REPO/scripts/bench_scale_report.py" "$OUT" "$WORK"/scale-*.json
