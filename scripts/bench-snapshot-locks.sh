#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Where a snapshot's table locks land, and for how long, on the multi-process cluster (a mysqld
# per tablet, a PRIMARY and a REPLICA per shard): every tablet's MySQL general log is on while
# `vstream snapshot` copies a seeded table twice — with the in-stream VStream copy (the log's
# tablet, PRIMARY) and with the chunked snapshot (chunks on REPLICA tablets) — then, per method
# and tablet, the `LOCK TABLES … READ` statements and how long each was held (lock to unlock on
# the same connection) are printed. Then `vitess-cdc-bench --snapshot-lag` runs on the same
# cluster: another table's lag and the large table's write latency during each snapshot.
# Results: docs/benchmarks.md ("What a snapshot does to everything else: lag and locks").
#
#   bash scripts/bench-snapshot-locks.sh
#
# Env: LOCK_ROWS (rows of the locked table, default 200000), LOCK_CHUNK_ROWS (default 20000),
# LAG_ROWS (default 1000000), VT_CLUSTER_BASE_PORT (default 36300: not the tests' cluster),
# KEEP_CLUSTER=1, BENCH_PROFILE (default release).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export VT_CLUSTER_BASE_PORT=${VT_CLUSTER_BASE_PORT:-36300}
# shellcheck source=../tests/vitess/cluster/env.sh
source "$REPO/tests/vitess/cluster/env.sh"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$VITESS_CDC_CACHE/cargo-target}
PROFILE=${BENCH_PROFILE:-release}
ROWS=${LOCK_ROWS:-200000}
CHUNK_ROWS=${LOCK_CHUNK_ROWS:-20000}
LAG_ROWS=${LAG_ROWS:-1000000}
TABLE=bench_lock_big
OUT=$(mktemp -d)
[ "$PROFILE" = dev ] && bin_dir=debug || bin_dir=$PROFILE

say() { printf '[snapshot-locks %3ds] %s\n' "$SECONDS" "$*" >&2; }

(cd "$REPO" && cargo build -q --profile "$PROFILE" -p vitess-cdc-cli --bin vstream --bin vitess-cdc-bench)
VSTREAM=$CARGO_TARGET_DIR/$bin_dir/vstream
BENCH=$CARGO_TARGET_DIR/$bin_dir/vitess-cdc-bench

bash "$REPO/tests/vitess/cluster/install.sh"
bash "$REPO/tests/vitess/cluster/up.sh"
cleanup() {
  rm -rf "$OUT"
  [ "${KEEP_CLUSTER:-0}" = 1 ] || bash "$REPO/tests/vitess/cluster/down.sh" > /dev/null 2>&1 || true
}
trap cleanup EXIT

# The commerce keyspace's tablets: uid and type (PRIMARY / REPLICA), from the topology.
mapfile -t tablets < <(vt_cluster_ctl GetTablets --keyspace commerce |
  awk '{split($1, a, "-"); print (a[2] + 0) " " toupper($4)}')
[ ${#tablets[@]} -ge 2 ] || { echo "expected a primary and a replica of commerce/0, got: ${tablets[*]}" >&2; exit 1; }
tablet_sql() { mariadb --no-defaults -S "$VT_CLUSTER_RUN/vt_$(printf '%010d' "$1")/mysql.sock" -u vt_dba -N -e "$2"; }

say "seeding commerce.$TABLE ($ROWS rows)"
{
  echo "drop table if exists $TABLE;"
  echo "create table $TABLE (id BIGINT NOT NULL, v BIGINT NOT NULL, pad VARCHAR(48) NOT NULL, PRIMARY KEY (id));"
  seq 0 $((ROWS - 1)) | awk '{ printf "%s(%d, %d, '"'"'row %d'"'"')", (NR % 2000 == 1 ? "insert into '"$TABLE"' values " : ","), $1, $1 * 7, $1; if (NR % 2000 == 0) print ";" } END { if (NR % 2000) print ";" }'
} | vt_cluster_mysql commerce
# The replica's vttablet learns a new table at its next schema reload (30 min by default);
# a chunk read there before that fails and is retried. Reload now, as docs/snapshots.md says.
vt_cluster_ctl ReloadSchemaKeyspace commerce > /dev/null

# general_log_on METHOD / general_log_off: every commerce tablet logs its statements to a file
# of its own per method.
general_log_on() {
  local t uid
  for t in "${tablets[@]}"; do
    uid=${t%% *}
    tablet_sql "$uid" "set global log_output = 'FILE'; set global general_log_file = '$VT_CLUSTER_RUN/general-$1-$uid.log'; set global general_log = ON"
  done
}
general_log_off() {
  local t
  for t in "${tablets[@]}"; do tablet_sql "${t%% *}" "set global general_log = OFF"; done
}

run_snapshot() { # METHOD VSTREAM-ARGS...
  local method=$1
  shift
  general_log_on "$method"
  local started=$SECONDS
  rows=$("$VSTREAM" snapshot --address "$VT_CLUSTER_GRPC_ADDR" -k commerce -t "$TABLE" "$@" 2> "$OUT/$method.err" | grep -c '"snapshot":true' || true)
  general_log_off
  say "$method: $rows rows in $((SECONDS - started)) s"
  [ "$rows" -ge "$ROWS" ] || { cat "$OUT/$method.err" >&2; echo "$method read $rows rows, expected $ROWS" >&2; exit 1; }
}
run_snapshot in-stream-copy
run_snapshot chunked --chunked --snapshot-tablet-type replica --chunk-rows "$CHUNK_ROWS"

echo
echo "Table locks on commerce/0 while \`vstream snapshot\` reads $TABLE ($ROWS rows; chunks of $CHUNK_ROWS rows)"
echo
echo "| method | tablet | type | LOCK TABLES | held: median | max | total |"
echo "|---|---|---|---:|---:|---:|---:|"
for method in in-stream-copy chunked; do
  for t in "${tablets[@]}"; do
    uid=${t%% *}
    type=${t#* }
    log=$VT_CLUSTER_RUN/general-$method-$uid.log
    # Lines: time<TAB>  id Command<TAB>argument. A lock's hold = its connection's next
    # `unlock tables` minus the `lock tables`; printed in µs, then summarised.
    held=$(awk -F'\t' -v table="$TABLE" '
      function us(ts,   d, t, s) { split(ts, d, "T"); split(d[2], t, ":"); s = t[3]; sub("Z", "", s); return ((t[1] * 60 + t[2]) * 60 + s) * 1e6 }
      NF >= 3 {
        split($2, c, " "); conn = c[1]; q = tolower($3)
        if (q ~ /^lock tables/ && index(q, table)) start[conn] = us($1)
        else if (q ~ /^unlock tables/ && (conn in start)) { printf "%d\n", us($1) - start[conn]; delete start[conn] }
      }' "$log" 2> /dev/null | sort -n || true)
    printf '%s\n' "$held" | awk -v method="$method" -v uid="$uid" -v type="$type" '
      NF { v[++n] = $1; total += $1 }
      END {
        if (n == 0) { printf "| %s | %s | %s | 0 | – | – | – |\n", method, uid, type; exit }
        printf "| %s | %s | %s | %d | %.2f ms | %.2f ms | %.2f ms |\n", method, uid, type, n, v[int((n + 1) / 2)] / 1000, v[n] / 1000, total / 1000
      }'
  done
done
rm -f "$VT_CLUSTER_RUN"/general-*.log
vt_cluster_mysql commerce -e "drop table if exists $TABLE"

echo
say "another table's lag and the writes' latency during each snapshot (vitess-cdc-bench --snapshot-lag)"
lag_json=${LAG_JSON:-$REPO/target/snapshot-lag-cluster.json}
mkdir -p "$(dirname "$lag_json")"
# The bench creates its large table moments before the chunked run and waits until the replica
# can stream it: reload the schema once it says so.
"$BENCH" --snapshot-lag --address "$VT_CLUSTER_GRPC_ADDR" --mysql-port "$VT_CLUSTER_MYSQL_PORT" \
  --keyspace commerce --lag-rows "$LAG_ROWS" --snapshot-tablet-type replica \
  --json "$lag_json" 2> >(tee "$OUT/lag.err" >&2) &
bench=$!
until grep -q "waiting until the replica tablets know" "$OUT/lag.err" 2> /dev/null || ! kill -0 "$bench" 2> /dev/null; do sleep 1; done
kill -0 "$bench" 2> /dev/null && vt_cluster_ctl ReloadSchemaKeyspace commerce > /dev/null
wait "$bench"
