#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Starts a standalone MySQL 9.7 (the binaries tests/vitess/install.sh installed) on its own port and
# data dir: the target of the JDBC sink recipe's test (docs/sql-connector.md, "Sinks"). Idempotent:
# returns at once when it already runs. The data dir is kept between starts (initialized once with
# --initialize-insecure); tests create and drop their own tables in the database `sink`. As root,
# mysqld runs as the system user of the local Vitess (VT_RUN_AS, mysqld refuses root).
# Returns once the account `flink` can use the database `sink`.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../vitess/env.sh
source "$HERE/../vitess/env.sh"
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

UP_TIMEOUT=${MYSQL_SINK_UP_TIMEOUT:-90}
t0=$SECONDS

[ -x "$VT_MYSQL_ROOT/bin/mysqld" ] || die "MySQL is not installed ($VT_MYSQL_ROOT/bin/mysqld missing): run tests/vitess/install.sh first"

if pid=$(mysql_sink_pid); then
  if mysql_sink_ready; then
    echo "mysql/up: already running (pid $pid) on $MYSQL_SINK_HOST:$MYSQL_SINK_PORT. Stop it with tests/mysql/down.sh"
    exit 0
  fi
  die "a mysqld is already starting or unhealthy (pid $pid, log $MYSQL_SINK_LOG). Stop it with tests/mysql/down.sh, then run up again"
fi
rm -f "$MYSQL_SINK_PID_FILE"
if (exec 3<> "/dev/tcp/127.0.0.1/$MYSQL_SINK_PORT") 2> /dev/null; then
  die "port $MYSQL_SINK_PORT is already in use by another process. Choose another with MYSQL_SINK_PORT=<n>"
fi

mkdir -p "$MYSQL_SINK_DIR/tmp"
as_user=()
if [ -n "${VT_RUN_AS:-}" ]; then
  chown -R "$VT_RUN_AS" "$MYSQL_SINK_DIR"
  as_user=(setpriv "--reuid=$VT_RUN_AS" "--regid=$VT_RUN_AS" --init-groups)
fi
common=(--basedir="$VT_MYSQL_ROOT" --datadir="$MYSQL_SINK_DATA" --tmpdir="$MYSQL_SINK_DIR/tmp"
  --log-error="$MYSQL_SINK_LOG")

if [ ! -d "$MYSQL_SINK_DATA/mysql" ]; then
  echo "mysql/up: initializing $MYSQL_SINK_DATA"
  rm -rf "$MYSQL_SINK_DATA"
  if ! "${as_user[@]}" "$VT_MYSQL_ROOT/bin/mysqld" --no-defaults --initialize-insecure "${common[@]}"; then
    tail -n 25 "$MYSQL_SINK_LOG" >&2
    rm -rf "$MYSQL_SINK_DATA"
    die "mysqld --initialize-insecure failed (log above, $MYSQL_SINK_LOG)"
  fi
fi

# setsid: its own process group, away from the caller's terminal signals. setsid, setpriv and the
# wrapper exec, so $! is mysqld's own pid. No binary log, X protocol or performance schema: a sink
# needs none of them, and the machine is shared.
setsid "${as_user[@]}" "$VT_MYSQL_ROOT/bin/mysqld" --no-defaults "${common[@]}" \
  --port="$MYSQL_SINK_PORT" --bind-address=127.0.0.1 --socket="$MYSQL_SINK_SOCKET" \
  --mysqlx=OFF --skip-log-bin --performance-schema=OFF --innodb-buffer-pool-size=64M \
  --pid-file="$MYSQL_SINK_DIR/mysqld.own.pid" \
  > /dev/null 2>&1 < /dev/null &
pid=$!
echo "$pid" > "$MYSQL_SINK_PID_FILE"

while ! mysql_sink_root -N -e "SELECT 1" > /dev/null 2>&1; do
  if ! kill -0 "$pid" 2> /dev/null; then
    rm -f "$MYSQL_SINK_PID_FILE"
    echo "mysql/up: mysqld exited during startup; last lines of $MYSQL_SINK_LOG:" >&2
    tail -n 25 "$MYSQL_SINK_LOG" >&2
    exit 1
  fi
  if [ $((SECONDS - t0)) -ge "$UP_TIMEOUT" ]; then
    echo "mysql/up: not ready after ${UP_TIMEOUT}s; stopping it. Last lines of $MYSQL_SINK_LOG:" >&2
    tail -n 25 "$MYSQL_SINK_LOG" >&2
    bash "$HERE/down.sh" >&2 || true
    exit 1
  fi
  sleep 0.5
done
mysql_sink_root -e "CREATE DATABASE IF NOT EXISTS \`$MYSQL_SINK_DATABASE\`;
  CREATE USER IF NOT EXISTS '$MYSQL_SINK_USER'@'%' IDENTIFIED BY '$MYSQL_SINK_PASSWORD';
  GRANT ALL ON \`$MYSQL_SINK_DATABASE\`.* TO '$MYSQL_SINK_USER'@'%';"
mysql_sink_ready || die "the account $MYSQL_SINK_USER or the database $MYSQL_SINK_DATABASE is missing after setup"
echo "mysql/up: ready in $((SECONDS - t0))s (pid $pid): $MYSQL_SINK_HOST:$MYSQL_SINK_PORT, database $MYSQL_SINK_DATABASE, user $MYSQL_SINK_USER/$MYSQL_SINK_PASSWORD"
