#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Tells whether the standalone MySQL of tests/mysql/up.sh runs, and where.
# Exit code: 0 running and ready, 1 not running, 2 running but not ready.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../vitess/env.sh
source "$HERE/../vitess/env.sh"
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

if ! pid=$(mysql_sink_pid); then
  echo "mysql/status: not running"
  exit 1
fi
if ! mysql_sink_ready; then
  echo "mysql/status: running (pid $pid) but not ready; log: $MYSQL_SINK_LOG"
  exit 2
fi
echo "mysql/status: running (pid $pid): $MYSQL_SINK_HOST:$MYSQL_SINK_PORT, database $MYSQL_SINK_DATABASE, user $MYSQL_SINK_USER; data and log in $MYSQL_SINK_DIR"
