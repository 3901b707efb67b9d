# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# The CLI shows an insert, an update and a delete, with their values, in order.
# Deterministic: take the current positions first, then write, then tail from those positions.
# Other writers may use the table at the same time, so only rows with our id are checked.

id=$(( $(date +%s%N) % 1000000000000 + 7000000000000 ))
"$VSTREAM" positions -k customer -t customer > "$WORK/pos.json" 2> "$WORK/pos.err"
check "positions prints one entry per shard of customer" \
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert sorted(s["shard"] for s in p["shards"]) == ["-80","80-"], p' "$WORK/pos.json"
vt_mysql -D customer -e "
  INSERT INTO customer (customer_id, email, name, balance, visits) VALUES ($id, 'e2e.$id@example.com', 'e2e', 12.50, 1);
  UPDATE customer SET visits = 2, balance = 99.99 WHERE customer_id = $id;
  DELETE FROM customer WHERE customer_id = $id;"

"$VSTREAM" tail -k customer -t customer --start "@$WORK/pos.json" > "$WORK/tail.jsonl" 2> "$WORK/tail.err" &
tail_pid=$!
for _ in $(seq 1 120); do
  grep -q "\"op\":\"delete\"" "$WORK/tail.jsonl" 2> /dev/null && grep -q "$id" "$WORK/tail.jsonl" &&
    python3 - "$WORK/tail.jsonl" "$id" << 'PY' && break
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
mine = [r for r in rows if (r.get("after") or r.get("before") or {}).get("customer_id") == int(sys.argv[2])]
sys.exit(0 if any(r["op"] == "delete" for r in mine) else 1)
PY
  sleep 0.5
done
kill "$tail_pid" 2> /dev/null; wait "$tail_pid" 2> /dev/null

python3 - "$WORK/tail.jsonl" "$id" > "$WORK/mine.txt" << 'PY'
import json, sys
id_ = int(sys.argv[2])
for line in open(sys.argv[1]):
    r = json.loads(line)
    row = r.get("after") or r.get("before") or {}
    if row.get("customer_id") == id_:
        print(r["op"], json.dumps(r.get("before"), sort_keys=True), json.dumps(r.get("after"), sort_keys=True), r["shard"], r["snapshot"])
PY
ops=$(cut -d' ' -f1 "$WORK/mine.txt" | tr '\n' ' ')
check "tail from saved positions shows insert, update, delete in order (got: $ops)" \
  test "$ops" = "insert update delete "
check "insert carries its values" \
  grep -q "^insert null {\"balance\": \"12.50\", \"customer_id\": $id, \"email\": \"e2e.$id@example.com\", \"name\": \"e2e\"" "$WORK/mine.txt"
check "update carries before and after" \
  grep -q "^update {\"balance\": \"12.50\", .*\"visits\": 1} {\"balance\": \"99.99\", .*\"visits\": 2}" "$WORK/mine.txt"
check "delete carries the deleted row" \
  grep -q "^delete {\"balance\": \"99.99\", \"customer_id\": $id, .*\"visits\": 2} null" "$WORK/mine.txt"
check "streamed changes are not marked as snapshot rows" \
  bash -c "! grep -q ' True$' '$WORK/mine.txt'"
