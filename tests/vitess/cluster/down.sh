#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Stops the multi-process cluster started by up.sh: every process by its pid file (gates and
# tablets first, etcd last), then any process of our install that still names the run dir.
# Leaves the run dir (logs) in place; up.sh removes it. Fails if anything is still running.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
T0=$SECONDS

if [ ! -d "$VT_CLUSTER_RUN" ]; then
  say "not running (no $VT_CLUSTER_RUN)"
  exit 0
fi
stop_everything
left=$(cluster_pids | xargs)
[ -z "$left" ] || die "still running after stop: pids $left"
say "stopped; nothing of $VT_CLUSTER_RUN runs (logs stay in $LOGS_DIR)"
