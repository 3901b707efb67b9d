# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Helpers shared by up.sh, down.sh and status.sh. Needs env.sh sourced first.

die() { echo "$(basename "$0" .sh): $*" >&2; exit 1; }

# Prints the pid of the running vttestserver we started, if any; fails otherwise.
cluster_pid() {
  [ -f "$VT_PID_FILE" ] || return 1
  local pid; pid=$(cat "$VT_PID_FILE" 2> /dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2> /dev/null || return 1
  tr "\0" " " < "/proc/$pid/cmdline" | grep -q vttestserver 2> /dev/null || return 1
  echo "$pid"
}

port_in_use() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

port_owner() {
  local owner
  owner=$(ss -ltnpH "sport = :$1" 2> /dev/null | grep -o 'users:(([^)]*))' | head -1)
  echo "${owner:-an unknown process}"
}

# Ready = VTGate answers on gRPC and MySQL, and every shard of every keyspace serves a query.
cluster_ready() {
  port_in_use "$VTGATE_GRPC_PORT" || return 1
  port_in_use "$VTGATE_MYSQL_PORT" || return 1
  vt_mysql -N -e "SELECT COUNT(*) FROM customer.customer; SELECT COUNT(*) FROM commerce.product;
    SELECT COUNT(*) FROM strict.s_unsigned" > /dev/null 2>&1
}

# The pid of the mysqld of our data dir, if its pid file names a live process.
mysqld_pid() {
  local f pid
  for f in "$VT_DATA_DIR"/vt_*/mysql.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f" 2> /dev/null)
    [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2> /dev/null && { echo "$pid"; return 0; }
  done
  return 1
}

# A mysqld left behind by a killed cluster holds its port; stop it (only ours, by its pid file).
stop_stale_mysqld() {
  local pid
  if pid=$(mysqld_pid); then
    echo "$(basename "$0" .sh): stopping mysqld left over from an earlier cluster (pid $pid)"
    stop_pid "$pid" mysqld
  fi
}

# TERM, wait up to 30 s, then KILL.
stop_pid() {
  local pid=$1 what=$2 i
  kill -TERM "$pid" 2> /dev/null || return 0
  for i in $(seq 1 60); do
    kill -0 "$pid" 2> /dev/null || return 0
    sleep 0.5
  done
  echo "$(basename "$0" .sh): $what (pid $pid) did not stop in 30s; killing it" >&2
  kill -KILL "$pid" 2> /dev/null || true
}
