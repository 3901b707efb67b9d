#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# End-to-end scenarios of the `vstream` CLI against the running local Vitess.
# Prints one line per check and a closing "N passed, N failed" line; exits non-zero on a failure.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=../vitess/env.sh
source "$REPO/tests/vitess/env.sh"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}

bash "$REPO/tests/vitess/status.sh" > /dev/null || {
  echo "e2e: the local Vitess is not running; start it with tests/vitess/up.sh" >&2
  echo "0 passed, 1 failed"
  exit 1
}
cargo build -q -p vitess-cdc-cli || { echo "0 passed, 1 failed"; exit 1; }
VSTREAM="$CARGO_TARGET_DIR/debug/vstream"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for scenario in "$HERE"/scenarios/*.sh; do
  # shellcheck source=/dev/null
  source "$scenario"
done

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
