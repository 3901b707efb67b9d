# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Settings of the standalone MySQL (tests/mysql/up.sh): a plain mysqld 9.7 from the binaries
# tests/vitess/install.sh installed, the target of the JDBC sink recipe's test
# (VitessJdbcSinkITCase, docs/sql-connector.md "Sinks"). Source it after tests/vitess/env.sh
# (VT_MYSQL_ROOT, VITESS_CDC_RUN, VT_RUN_AS). Overridable from the environment:
#
#   MYSQL_SINK_PORT   its TCP port on 127.0.0.1 (default 15980)
#   MYSQL_SINK_DIR    its data dir, socket, log and pid file (default $VITESS_CDC_RUN/mysql-sink)
#
# Account for the tests: user `flink`, password `flink`, from any host, all privileges on the
# database `sink` (created by up.sh).

export MYSQL_SINK_PORT=${MYSQL_SINK_PORT:-15980}
export MYSQL_SINK_HOST=127.0.0.1
export MYSQL_SINK_USER=flink
export MYSQL_SINK_PASSWORD=flink
export MYSQL_SINK_DATABASE=sink
MYSQL_SINK_DIR=${MYSQL_SINK_DIR:-$VITESS_CDC_RUN/mysql-sink}
MYSQL_SINK_DATA=$MYSQL_SINK_DIR/data
MYSQL_SINK_SOCKET=$MYSQL_SINK_DIR/mysql.sock
MYSQL_SINK_PID_FILE=$MYSQL_SINK_DIR/mysqld.pid
MYSQL_SINK_LOG=$MYSQL_SINK_DIR/mysqld.log

# MySQL 9.7's own client as root over the server's unix socket (no password: initialize-insecure).
mysql_sink_root() {
  "$VT_MYSQL_ROOT/bin/mysql" --no-defaults -S "$MYSQL_SINK_SOCKET" -u root "$@"
}
