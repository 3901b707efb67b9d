# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Misconfiguration fails fast (within the connect timeout) with a message naming the cause.

# expect_error NAME MAX_SECONDS PATTERN ARGS...: vstream must fail within MAX_SECONDS, print
# PATTERN on stderr, and print no backtrace.
expect_error() {
  local name=$1 max=$2 pattern=$3; shift 3
  local t0=$SECONDS rc
  timeout $((max + 20)) "$VSTREAM" "$@" > "$WORK/err.out" 2> "$WORK/err.txt"
  rc=$?
  local took=$((SECONDS - t0))
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
    fail "$name: expected a failure, got rc=$rc after ${took}s"; return
  fi
  if [ "$took" -gt "$max" ]; then
    fail "$name: took ${took}s (limit ${max}s)"; return
  fi
  if ! grep -Eqi -- "$pattern" "$WORK/err.txt"; then
    fail "$name: message does not match /$pattern/: $(head -c 300 "$WORK/err.txt")"; return
  fi
  if grep -q 'panicked\|RUST_BACKTRACE' "$WORK/err.txt"; then
    fail "$name: panicked: $(head -c 300 "$WORK/err.txt")"; return
  fi
  pass "$name (${took}s): $(head -n 1 "$WORK/err.txt" | cut -c1-160)"
}

# Nothing listens on port 1: what a stopped cluster looks like.
expect_error "stopped cluster / refused port" 8 "127\.0\.0\.1:1" \
  tail -k customer --address 127.0.0.1:1 --connect-timeout-secs 5
expect_error "unresolvable VTGate host" 8 "no-such-host\.invalid" \
  tail -k customer --address no-such-host.invalid:15991 --connect-timeout-secs 5
# A port that accepts TCP but never speaks gRPC: must not hang past the timeout.
python3 -c 'import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 15989)); s.listen(8)
time.sleep(30)' &
silent=$!
sleep 0.3
expect_error "VTGate address that accepts but never answers" 8 "127\.0\.0\.1:15989" \
  tail -k customer --address 127.0.0.1:15989 --connect-timeout-secs 5
kill $silent 2> /dev/null; wait $silent 2> /dev/null
expect_error "unknown keyspace" 8 "no_such_keyspace" \
  tail -k no_such_keyspace --connect-timeout-secs 5
expect_error "unknown table" 8 "no_such_table" \
  tail -k customer -t no_such_table --connect-timeout-secs 5
expect_error "table without a primary key" 8 "primary key" \
  tail -k customer -t audit_log --connect-timeout-secs 5
expect_error "malformed start position" 3 "start|position|JSON" \
  tail -k customer --start '{"shards": [' --connect-timeout-secs 5
