# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# The CLI, started at the latest position, shows every insert, update and delete the load
# generator makes while it runs: per row, the same operations in the same order.

"$VSTREAM" tail -k customer -t customer --start latest --positions > "$WORK/live.jsonl" 2> "$WORK/live.err" &
live_pid=$!
# A mark line means the stream is established: from here on, nothing written is missed.
for _ in $(seq 1 40); do grep -q '"op":"mark"' "$WORK/live.jsonl" 2> /dev/null && break; sleep 0.25; done
check "tail --start latest reports a position once streaming" grep -q '"op":"mark"' "$WORK/live.jsonl"

bash "$REPO/tests/vitess/loadgen.sh" --rate 40 --count 60 --verbose > "$WORK/stmts.sql"
# loadgen's ids are per run; expected = per id, the list of operations in statement order.
python3 - "$WORK/stmts.sql" > "$WORK/expected.txt" << 'PY'
import re, sys
ops = {}
for s in open(sys.argv[1]):
    m = re.match(r"(INSERT|UPDATE|DELETE)\b.*?(?:VALUES \((\d+)|customer_id = (\d+))", s)
    if m:
        ops.setdefault(int(m.group(2) or m.group(3)), []).append(m.group(1).lower())
for k in sorted(ops):
    print(k, " ".join(ops[k]))
PY
want=$(wc -l < "$WORK/expected.txt")
# Wait until the stream has shown the last operation of every id (or 30 s).
for _ in $(seq 1 60); do
  python3 - "$WORK/live.jsonl" "$WORK/expected.txt" > "$WORK/actual.txt" << 'PY'
import json, sys
want = {int(l.split()[0]) for l in open(sys.argv[2])}
ops = {}
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue  # a line still being written
    if r.get("op") not in ("insert", "update", "delete"):
        continue
    row = r.get("after") or r.get("before") or {}
    if row.get("customer_id") in want:
        ops.setdefault(row["customer_id"], []).append(r["op"])
for k in sorted(ops):
    print(k, " ".join(ops[k]))
PY
  cmp -s "$WORK/expected.txt" "$WORK/actual.txt" && break
  sleep 0.5
done
kill "$live_pid" 2> /dev/null; wait "$live_pid" 2> /dev/null
check "tail shows every change of a concurrent writer, per row in order ($want rows)" \
  cmp -s "$WORK/expected.txt" "$WORK/actual.txt"
[ "$failed" -eq 0 ] || diff "$WORK/expected.txt" "$WORK/actual.txt" | head -10
