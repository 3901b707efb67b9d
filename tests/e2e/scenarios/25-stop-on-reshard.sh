# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# `vstream tail --stop-on-reshard` against the scripted reshard VTGate (rust/testkit, a split of
# -80 into -40 and 40-80): it prints the journal and stops saying a reshard journal was reached,
# not that a snapshot ended.

cargo build -q -p vitess-cdc-testkit --bin reshard-vtgate || fail "build reshard-vtgate"
coproc RESHARD { "$CARGO_TARGET_DIR/debug/reshard-vtgate" --keys 8 --before 3 --after 3 --batch 4 --pace-ms 20; }
read -r listening <&"${RESHARD[0]}"
reshard_addr=${listening#listening on }
timeout 60 "$VSTREAM" tail --address "$reshard_addr" -k ks -t t --start latest --stop-on-reshard \
  > "$WORK/reshard.jsonl" 2> "$WORK/reshard.err"
rc=$?
exec {RESHARD[1]}>&- # reshard-vtgate exits when its stdin closes
wait "$RESHARD_PID" 2> /dev/null
check "--stop-on-reshard ends tail with exit 0 at the reshard (rc=$rc)" test "$rc" -eq 0
check "--stop-on-reshard prints the journal" grep -q '"op":"journal"' "$WORK/reshard.jsonl"
check "--stop-on-reshard says a reshard journal was reached, not a snapshot's end" \
  grep -q "stopped (reshard journal reached (--stop-on-reshard)" "$WORK/reshard.err"
