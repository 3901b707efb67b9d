#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# The older Vitess release lines (docs/positions.md, "Vitess versions"): for each, install it the
# way tests/vitess/install.sh installs v24 (go install at that tag), start its vttestserver beside
# the main local Vitess (ports from VT_BASE_PORT 17990, data of its own), run the core's live tests
# and the main source and SQL ITCases against it, and stop it again.
# Usage: scripts/vitess-lines.sh [version ...]   (default: every older line, v0.23.3 and v0.22.4)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(v0.23.3 v0.22.4)

# The core's tests that read a real VTGate through vttestserver (the multi-process cluster's
# are v24 only: its scripts start v24's binaries).
LIVE_TESTS=(--test live_vitess --test live_types --test live_key_order --test live_bad_inputs
  --test live_snapshot --test live_panics --test live_planetscale --test live_keyspaces --test latest_start)
ITCASES='VitessSourceITCase,VitessTableITCase'

run_line() {
  local version=$1
  # Everything of this line apart from the main local Vitess: binaries, data, ports.
  export VITESS_VERSION=$version
  export VITESS_CDC_RUN="$VITESS_CDC_CACHE/run-$version"
  export VT_BASE_PORT=17990
  source "$REPO/tests/vitess/env.sh"
  step "Vitess $version: install" bash tests/vitess/install.sh
  bash tests/vitess/down.sh > /dev/null 2>&1 || true
  trap 'bash "$REPO/tests/vitess/down.sh" > /dev/null 2>&1 || true; print_step_times; print_test_failures' EXIT
  step "Vitess $version: start vttestserver on $VTGATE_GRPC_ADDR" bash tests/vitess/up.sh
  step "Vitess $version: the core's live tests" \
    cargo test -p vitess-cdc-core --features integration "${LIVE_TESTS[@]}"
  step "Vitess $version: $ITCASES" \
    "${MVN[@]}" verify -Dcargo.profile=dev -Dnative.cross.skip=true -pl java/vitess-cdc-connector \
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test="$ITCASES" -Dfailsafe.failIfNoSpecifiedTests=false
}

for version in "${versions[@]}"; do
  # A subshell per line: its exports and trap end with it.
  (run_line "$version")
done
