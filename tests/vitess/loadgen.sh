#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Writes inserts, updates and deletes into customer.customer through VTGate's MySQL port, at a
# steady rate, until the duration or count is reached (or forever with --duration 0).
#
# usage: loadgen.sh [--rate OPS_PER_SEC] [--duration SECONDS] [--count OPS] [--verbose]
#   defaults: --rate 20 --duration 30. Mix: 50% insert, 35% update, 15% delete.
# Ids are unique per run (a block of a million from the start time in milliseconds), so runs never
# collide with each other or with tests, even two started in the same second.
# Prints a summary line: "loadgen: N inserts, N updates, N deletes in S s".
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"

rate=20 duration=30 count=0 verbose=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --verbose) verbose=1; shift ;;
    -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "loadgen: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$rate" =~ ^[1-9][0-9]*$ ]] || { echo "loadgen: --rate must be a positive integer, got '$rate'" >&2; exit 2; }
[[ "$duration" =~ ^[0-9]+$ ]] || { echo "loadgen: --duration must be whole seconds, got '$duration'" >&2; exit 2; }
[[ "$count" =~ ^[0-9]+$ ]] || { echo "loadgen: --count must be a whole number, got '$count'" >&2; exit 2; }
vt_mysql -e 'SELECT 1' > /dev/null 2>&1 || {
  echo "loadgen: VTGate's MySQL port 127.0.0.1:$VTGATE_MYSQL_PORT does not answer; start the cluster with tests/vitess/up.sh" >&2
  exit 1
}

names=(ada grace linus barbara ken dennis margaret edsger donald frances)
# Milliseconds, not seconds: the demo seeds 20 rows and starts the writer within the same second,
# and two runs with one base collide on their first INSERT. Below 2^53, so JSON readers keep them.
base=$(( $(date +%s%3N) % 1000000000 * 1000000 ))
live=()                 # ids inserted by this run and not deleted yet
next=0 inserts=0 updates=0 deletes=0 ops=0
tick=0.1                # write in ticks of 100 ms
per_tick=$(( (rate + 9) / 10 ))
start=$SECONDS

# Picks the next operation, updates the bookkeeping and leaves the SQL in $stmt.
next_statement() {
  local roll=$((RANDOM % 100)) n=${#live[@]}
  if [ "$n" -eq 0 ] || [ $roll -lt 50 ]; then
    local id=$((base + next)); next=$((next + 1))
    local name=${names[$((RANDOM % ${#names[@]}))]}
    live+=("$id"); inserts=$((inserts + 1))
    stmt="INSERT INTO customer (customer_id, email, name, balance, visits) VALUES ($id, '$name.$id@example.com', '$name', $((RANDOM % 10000)).$((RANDOM % 100)), 0);"
  elif [ $roll -lt 85 ]; then
    local id=${live[$((RANDOM % n))]}
    updates=$((updates + 1))
    stmt="UPDATE customer SET visits = visits + 1, balance = balance + $((RANDOM % 100)), updated_at = NOW(6) WHERE customer_id = $id;"
  else
    local i=$((RANDOM % n)) id
    id=${live[$i]}
    live[$i]=${live[$((n - 1))]}
    unset "live[$((n - 1))]"
    deletes=$((deletes + 1))
    stmt="DELETE FROM customer WHERE customer_id = $id;"
  fi
}

# One client connection for the whole run; statements stream into its stdin. A statement the
# server refuses ends the client (its error is on stderr); the next write then fails, and is
# reported here, not as a bare SIGPIPE exit (141) of this script.
exec 3> >(vt_mysql --batch -D customer)
client=$!
trap 'exec 3>&-; wait $client 2> /dev/null || true' EXIT
trap '' PIPE
while :; do
  for _ in $(seq 1 "$per_tick"); do
    next_statement
    echo "$stmt" >&3 2> /dev/null || {
      echo "loadgen: the MySQL client stopped (its error is above) after $ops statements; the last one sent: $stmt" >&2
      exit 1
    }
    [ $verbose = 0 ] || echo "$stmt"
    ops=$((ops + 1))
    if [ "$count" -gt 0 ] && [ $ops -ge "$count" ]; then break 2; fi
  done
  if [ "$duration" -gt 0 ] && [ $((SECONDS - start)) -ge "$duration" ]; then break; fi
  sleep $tick
done
exec 3>&-
trap - EXIT
client_rc=0
wait $client || client_rc=$?
if [ $client_rc -ne 0 ]; then
  echo "loadgen: the MySQL client exited with $client_rc (its error is above) after $ops statements" >&2
  exit 1
fi
echo "loadgen: $inserts inserts, $updates updates, $deletes deletes in $((SECONDS - start)) s"
