# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# `vstream tail` over two keyspaces in one stream (docs/positions.md, "Several keyspaces"): the
# sharded customer and the unsharded commerce, tables named keyspace.table. The copy of both, its
# progress over three shards, a state file that lists both keyspaces' shards, and a restart from
# it that prints what changed in both while it was stopped, once. A table of a keyspace the stream
# does not read is a message naming the fix.

state="$WORK/keyspaces.state"
rm -f "$state"
base=$(( $(date +%s%N) % 1000000000000 + 8000000000000 ))
sku="e2e-ks-$base"
vt_mysql -D customer -e "INSERT INTO customer (customer_id, email, name) VALUES ($base, 'ks.$base@example.com', 'ks')"
vt_mysql -D commerce -e "INSERT INTO product (sku, description, price) VALUES ('$sku-0', 'e2e', 1)"

"$VSTREAM" tail -k customer,commerce -t customer.customer,commerce.product --state "$state" \
  --progress lines --idle-exit-secs 2 > "$WORK/ks-1.jsonl" 2> "$WORK/ks-1.err"
# "keyspace/table/key/copy|log" of each row line
rows_of() {
  python3 - "$1" << 'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "table" not in r:
        continue  # copy_completed, marks: no row
    row = r.get("after") or r.get("before") or {}
    key = row.get("customer_id", row.get("sku"))
    print(f'{r["keyspace"]}/{r["table"]}/{key}/{"copy" if r.get("snapshot") else "log"}')
PY
}
rows_of "$WORK/ks-1.jsonl" > "$WORK/ks-1.rows"
check "one tail copies customer's row, naming keyspace customer" grep -qx "customer/customer/$base/copy" "$WORK/ks-1.rows"
check "and commerce's row, naming keyspace commerce" grep -qx "commerce/product/$sku-0/copy" "$WORK/ks-1.rows"
check "the copy's progress counts the shards of both keyspaces" \
  grep -q "vstream: copy done: .* rows of 2 tables from 3 shards" "$WORK/ks-1.err"
check "the state file lists every shard of both keyspaces" \
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); s=sorted(x["keyspace"]+"/"+x["shard"] for x in p["shards"]); assert s==["commerce/0","customer/-80","customer/80-"], s' "$state"

vt_mysql -D customer -e "UPDATE customer SET visits = visits + 1 WHERE customer_id = $base"
vt_mysql -D commerce -e "INSERT INTO product (sku, description, price) VALUES ('$sku-1', 'e2e', 2)"
"$VSTREAM" tail -k customer,commerce -t customer.customer,commerce.product --state "$state" \
  --idle-exit-secs 3 > "$WORK/ks-2.jsonl" 2> "$WORK/ks-2.err"
check "the restart resumes both keyspaces from the state file without copying again" bash -c \
  "grep -q 'resuming from the position in' '$WORK/ks-2.err' && ! grep -q '\"snapshot\":true' '$WORK/ks-2.jsonl'"
counts=$(rows_of "$WORK/ks-2.jsonl" | grep -xE "customer/customer/$base/log|commerce/product/$sku-1/log" | sort | uniq -c | awk '{print $1}' | xargs)
check "what changed in each keyspace while it was stopped arrives once (counts: $counts)" test "$counts" = "1 1"

"$VSTREAM" tail -k customer -t commerce.product --start latest > /dev/null 2> "$WORK/ks-bad.err"
rc=$?
check "a table of a keyspace the stream does not read exits non-zero naming the fix (rc=$rc)" \
  bash -c "test $rc -ne 0 && grep -q 'which this stream does not read' '$WORK/ks-bad.err'"

vt_mysql -D customer -e "DELETE FROM customer WHERE customer_id = $base"
vt_mysql -D commerce -e "DELETE FROM product WHERE sku LIKE '$sku-%'"
