# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# `vstream tail --state FILE` is a restartable pipe: each run starts where the lines of the last
# one ended, with no gap and no repeat, whether it stopped by a limit or was killed. A copy shows
# its progress on stderr (lines when stderr is not a terminal) and says when it is done.

state="$WORK/customer.state"
rm -f "$state"
base=$(( $(date +%s%N) % 1000000000000 + 7000000000000 ))
insert() { vt_mysql -D customer -e "INSERT INTO customer (customer_id, email, name) VALUES ($1, 'state.$1@example.com', 'state')"; }

# The first run copies the table (a row of its own there at least), shows the copy's progress and
# leaves its position in the file.
insert $((base - 1))
"$VSTREAM" tail -k customer -t customer --state "$state" --progress lines --idle-exit-secs 2 \
  > "$WORK/state-1.jsonl" 2> "$WORK/state-1.err"
check "the first run with --state copies the table" grep -q "\"customer_id\":$((base - 1)),.*\"snapshot\":true" "$WORK/state-1.jsonl"
check "the copy's progress ends with a 'copy done' line on stderr" grep -q "vstream: copy done: .* rows of 1 tables from 2 shards" "$WORK/state-1.err"
check "--state wrote the position" python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert len(p["shards"]) == 2, p' "$state"

# Changes made between runs arrive in the next run, once; a killed run loses nothing either.
insert "$base"; insert $((base + 1))
"$VSTREAM" tail -k customer -t customer --state "$state" --max-changes 2 > "$WORK/state-2.jsonl" 2> "$WORK/state-2.err"
check "the next run resumes from the state file" grep -q "resuming from the position in" "$WORK/state-2.err"
check "it does not copy again" bash -c "! grep -q '\"snapshot\":true' '$WORK/state-2.jsonl'"
check "it prints the changes made since" grep -q "\"customer_id\":$((base + 1))" "$WORK/state-2.jsonl"
insert $((base + 2))
saved=$(cat "$state")
"$VSTREAM" tail -k customer -t customer --state "$state" > "$WORK/state-3.jsonl" 2> /dev/null &
tail_pid=$!
for _ in $(seq 1 60); do grep -q "\"customer_id\":$((base + 2))" "$WORK/state-3.jsonl" 2> /dev/null && break; sleep 0.25; done
# The run saves about once a second: kill it once the file holds the position after that line.
for _ in $(seq 1 40); do [ "$(cat "$state")" != "$saved" ] && break; sleep 0.25; done
check "the running tail saved its position after printing" test "$(cat "$state")" != "$saved"
kill -KILL "$tail_pid"; wait "$tail_pid" 2> /dev/null
insert $((base + 3))
"$VSTREAM" tail -k customer -t customer --state "$state" --max-changes 1 > "$WORK/state-4.jsonl" 2> /dev/null
counts=$(cat "$WORK"/state-{2,3,4}.jsonl | grep -oE "\"customer_id\":($base|$((base + 1))|$((base + 2))|$((base + 3)))[,}]" | sort | uniq -c | awk '{print $1}' | xargs)
check "across a limit, a kill -9 and two restarts each change printed once (counts: $counts)" test "$counts" = "1 1 1 1"
check "the change made after the kill arrives after it" grep -q "\"customer_id\":$((base + 3))" "$WORK/state-4.jsonl"
vt_mysql -D customer -e "DELETE FROM customer WHERE customer_id BETWEEN $((base - 1)) AND $((base + 3))"
