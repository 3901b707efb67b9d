#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Stops the standalone MySQL that tests/mysql/up.sh started (only that process, by its pid). The
# data dir stays; up.sh starts it again.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../vitess/env.sh
source "$HERE/../vitess/env.sh"
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

if pid=$(mysql_sink_pid); then
  stop_pid "$pid" mysqld
  rm -f "$MYSQL_SINK_PID_FILE"
  echo "mysql/down: stopped (pid $pid)"
else
  [ -f "$MYSQL_SINK_PID_FILE" ] && { echo "mysql/down: removing stale pid file $MYSQL_SINK_PID_FILE"; rm -f "$MYSQL_SINK_PID_FILE"; }
  echo "mysql/down: not running"
fi
