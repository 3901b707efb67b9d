#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Stops the local Vitess test cluster started by up.sh: only the processes it started, by pid.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

if pid=$(cluster_pid); then
  mysqld=$(mysqld_pid || true)
  # vttestserver tears down vtcombo and mysqld on TERM; its process group catches stragglers.
  stop_pid "$pid" vttestserver
  kill -TERM -- "-$pid" 2> /dev/null || true
  if [ -n "$mysqld" ] && kill -0 "$mysqld" 2> /dev/null; then stop_pid "$mysqld" mysqld; fi
  rm -f "$VT_PID_FILE"
  echo "down: stopped (pid $pid)"
else
  [ -f "$VT_PID_FILE" ] && { echo "down: removing stale pid file $VT_PID_FILE"; rm -f "$VT_PID_FILE"; }
  stop_stale_mysqld
  echo "down: not running"
fi
