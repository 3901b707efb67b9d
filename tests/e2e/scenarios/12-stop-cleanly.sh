# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# `vstream tail` stops cleanly: after --duration, and on SIGINT/SIGTERM after the batch in hand,
# with stdout flushed and the final position as the last stderr line. Resuming from that
# position neither repeats nor loses a printed change.

id=$(( $(date +%s%N) % 1000000000000 + 8000000000000 ))
started=$(date +%s)
"$VSTREAM" tail -k customer -t customer --start latest --duration 3 > "$WORK/dur.jsonl" 2> "$WORK/dur.err"
rc=$?
took=$(( $(date +%s) - started ))
check "--duration 3 exits 0 after about 3 s (rc=$rc, ${took}s)" test "$rc" -eq 0 -a "$took" -ge 3 -a "$took" -le 12
check "--duration says why it stopped" grep -q "stopped (duration reached)" "$WORK/dur.err"
check "--duration prints the final position as the last stderr line" \
  python3 -c 'import json,sys; p=json.loads(open(sys.argv[1]).read().splitlines()[-1]); assert sorted(s["shard"] for s in p["shards"]) == ["-80","80-"], p' "$WORK/dur.err"

"$VSTREAM" positions -k customer -t customer > "$WORK/stop-pos.json" 2> /dev/null
vt_mysql -D customer -e "INSERT INTO customer (customer_id, email, name) VALUES ($id, 'stop.$id@example.com', 'stop')"
"$VSTREAM" tail -k customer -t customer --start "@$WORK/stop-pos.json" > "$WORK/int.jsonl" 2> "$WORK/int.err" &
tail_pid=$!
for _ in $(seq 1 60); do grep -q "$id" "$WORK/int.jsonl" 2> /dev/null && break; sleep 0.25; done
kill -INT "$tail_pid"
stop_started=$(date +%s)
wait "$tail_pid"
rc=$?
check "SIGINT ends tail with exit 0 within 3 s (rc=$rc)" test "$rc" -eq 0 -a $(( $(date +%s) - stop_started )) -le 3
check "SIGINT: the printed change was flushed to stdout" grep -q "\"customer_id\":$id" "$WORK/int.jsonl"
check "SIGINT says why it stopped" grep -q "stopped (interrupted)" "$WORK/int.err"
tail -n 1 "$WORK/int.err" > "$WORK/final.json"
"$VSTREAM" tail -k customer -t customer --start "@$WORK/final.json" --duration 3 > "$WORK/resumed.jsonl" 2> /dev/null
check "resuming from the final position does not repeat the printed change" \
  bash -c "! grep -q '\"customer_id\":$id' '$WORK/resumed.jsonl'"

"$VSTREAM" tail -k customer -t customer --start latest > /dev/null 2> "$WORK/term.err" &
tail_pid=$!
sleep 2
kill -TERM "$tail_pid"
wait "$tail_pid"
rc=$?
check "SIGTERM ends tail with exit 0 and a final position (rc=$rc)" \
  bash -c "test $rc -eq 0 && tail -n 1 '$WORK/term.err' | python3 -c 'import json,sys; json.load(sys.stdin)'"
vt_mysql -D customer -e "DELETE FROM customer WHERE customer_id = $id"

# The compact binary form of positions works as a start position too.
bid=$((id + 1))
"$VSTREAM" positions -k customer -t customer --binary-out "$WORK/pos.bin" > /dev/null 2>&1
check "positions --binary-out writes VCPS binary positions" bash -c "head -c 4 '$WORK/pos.bin' | grep -q VCPS"
vt_mysql -D customer -e "INSERT INTO customer (customer_id, email, name) VALUES ($bid, 'bin.$bid@example.com', 'bin')"
"$VSTREAM" tail -k customer -t customer --start "@$WORK/pos.bin" --duration 4 > "$WORK/bin.jsonl" 2> /dev/null
check "tail --start @binary-file resumes from binary positions" grep -q "\"customer_id\":$bid" "$WORK/bin.jsonl"
vt_mysql -D customer -e "DELETE FROM customer WHERE customer_id = $bid"
