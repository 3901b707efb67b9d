# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# `vstream signal` as an operator runs it, beside a `vstream tail` that reads the signal table:
# the one row it writes lands on one shard, and the tail's stream there relays it to the other,
# so the table is re-read on both shards (docs/snapshots.md, "Signals"). A signal table that does
# not exist is a message naming the fix, not a crash.

base=$(( $(date +%s%N) % 1000000000 * 100 + 5000000000000 ))
values=$(python3 -c "import sys; b=int(sys.argv[1]); print(', '.join(f'({b+i}, 1, \"e2e\")' for i in range(40)))" "$base")
vt_mysql -D customer -e "INSERT INTO snap_rows (id, ver, pad) VALUES $values"
"$VSTREAM" tail -k customer -t snap_rows --start latest --signal-table snap_signal \
  --snapshot-tablet-type rdonly > "$WORK/signal-tail.jsonl" 2> "$WORK/signal-tail.err" &
tail_pid=$!
# The tail is reading once a change written after it started comes out.
vt_mysql -D customer -e "UPDATE snap_rows SET ver = 2 WHERE id = $base"
for _ in $(seq 1 60); do grep -q "\"id\":$base" "$WORK/signal-tail.jsonl" 2> /dev/null && break; sleep 0.25; done
signal_id="e2e-$base"
"$VSTREAM" signal -k customer --tables snap_rows --signal-table snap_signal --id "$signal_id" execute-snapshot \
  > "$WORK/signal.json" 2> "$WORK/signal.err"
rc=$?
check "vstream signal writes one row and prints it (rc=$rc)" \
  python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert len(r)==1 and r[0]["id"]==sys.argv[2] and r[0]["type"]=="execute-snapshot", r' \
  "$WORK/signal.json" "$signal_id"
snapshot_shards() {
  python3 - "$WORK/signal-tail.jsonl" "$base" << 'PY'
import json, sys
base = int(sys.argv[2])
shards = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    row = r.get("after") or {}
    if r.get("snapshot") and base <= row.get("id", -1) < base + 40:
        shards.add(r["shard"])
print(" ".join(sorted(shards)))
PY
}
for _ in $(seq 1 120); do [ "$(snapshot_shards)" = "-80 80-" ] && break; sleep 0.5; done
kill "$tail_pid" 2> /dev/null; wait "$tail_pid" 2> /dev/null
check "the one signal re-read the table on both shards (shards with re-read rows: $(snapshot_shards))" \
  test "$(snapshot_shards)" = "-80 80-"
relays=$(vt_mysql -N -D customer -e "SELECT COUNT(*) FROM snap_signal WHERE id LIKE '$signal_id@%'")
check "the tail relayed it to the other shard as that shard's own row (rows: $relays)" test "$relays" = 1

"$VSTREAM" signal -k customer --signal-table no_such_signal_table pause-snapshot > /dev/null 2> "$WORK/nosig.err"
rc=$?
check "a missing signal table exits non-zero naming the fix (rc=$rc)" \
  bash -c "test $rc -ne 0 && grep -q 'the signal table must exist in keyspace' '$WORK/nosig.err' && ! grep -q 'panicked' '$WORK/nosig.err'"

vt_mysql -D customer -e "DELETE FROM snap_rows WHERE id >= $base AND id < $base + 40; DELETE FROM snap_signal WHERE id LIKE '$signal_id%'"
