# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Helpers of tests/mysql/{up,down,status}.sh. Needs tests/vitess/env.sh and env.sh sourced first.

die() { echo "mysql/$(basename "$0" .sh): $*" >&2; exit 1; }

# The pid of the mysqld up.sh started, if it still runs; fails otherwise.
mysql_sink_pid() {
  [ -f "$MYSQL_SINK_PID_FILE" ] || return 1
  local pid; pid=$(cat "$MYSQL_SINK_PID_FILE" 2> /dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2> /dev/null || return 1
  tr "\0" " " < "/proc/$pid/cmdline" 2> /dev/null | grep -q mysqld || return 1
  echo "$pid"
}

# Ready = the server answers as root on its socket and the test account can reach the database.
mysql_sink_ready() {
  mysql_sink_root -N -e "SELECT COUNT(*) FROM mysql.user WHERE user = '$MYSQL_SINK_USER'" 2> /dev/null \
    | grep -qx 1 || return 1
  mysql_sink_root -N -e "SELECT 1 FROM information_schema.schemata WHERE schema_name = '$MYSQL_SINK_DATABASE'" \
    2> /dev/null | grep -qx 1
}

# TERM, wait up to 30 s, then KILL.
stop_pid() {
  local pid=$1 what=$2 i
  kill -TERM "$pid" 2> /dev/null || return 0
  for i in $(seq 1 60); do
    kill -0 "$pid" 2> /dev/null || return 0
    sleep 0.5
  done
  echo "mysql/$(basename "$0" .sh): $what (pid $pid) did not stop in 30s; killing it" >&2
  kill -KILL "$pid" 2> /dev/null || true
}
