#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Sets up everything on a fresh machine and runs every test:
#   Rust format, lint and unit tests first (fast, no cluster); then install the local Vitess
#   (MySQL 9.7 + Vitess v0.24.4) and start it with the multi-process cluster next to it (TLS
#   gates, real tablets) and a standalone MySQL (tests/mysql: the JDBC sink recipe's target),
#   Rust integration tests against both, the Maven build (Rust cdylib inside the jar) with Java
#   unit and integration tests against them, a 3-minute chaos soak (a fresh seed, printed), the
#   multi-process cluster stopped again, the end-to-end CLI scenarios, the demo, and by turns the
#   Rust unit tests for linux-aarch64 under qemu or a short smoke of the fuzz targets (nightly +
#   cargo-fuzz, installed once if missing). The other Flink lines (1.20, 2.3) by turns: one runs
#   every ITCase (while the multi-process cluster is up), the other its unit tests and main
#   ITCases (at the end); the turn is printed.
# Env: BOTH_TURNS=1 runs both turns of the slow checks (the aarch64 Rust unit tests under qemu,
#   the fuzz smoke) that a run otherwise takes by turns.
# Env: KEEP_CLUSTER=1 leaves the clusters (and the MySQL) this script started running afterwards.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"
check_toolchain
print_disk_space
trap 'stop_mysql_sink_if_started_here; stop_multi_cluster_if_started_here; stop_cluster_if_started_here; print_step_times; print_disk_space; print_test_failures' EXIT

# First tier, before anything is installed or started: a style slip or a broken unit test fails
# in seconds to minutes, not after the cluster and the Maven build.
step "cargo fmt --check" cargo fmt --all -- --check
step "java format (spotless:check; mvn spotless:apply fixes it)" "${MVN[@]}" spotless:check
step "licence headers" bash scripts/license-headers.sh
step "cargo clippy" cargo clippy --workspace --all-targets --all-features -- -D warnings
step "cargo unit tests" cargo test --workspace --all-features --lib
step "install the linux-aarch64 cross toolchain (the jar bundles both platforms)" bash scripts/install-cross.sh
step "install local Vitess" bash tests/vitess/install.sh
step "install multi-process Vitess (vtgate, vttablet, vtctld, etcd)" bash tests/vitess/cluster/install.sh
step "start local Vitess" ensure_cluster
step "start multi-process Vitess" ensure_multi_cluster
step "start a standalone MySQL (the JDBC sink recipe's target)" ensure_mysql_sink
step "cargo test (unit + integration against both clusters)" cargo test --workspace --all-features --no-fail-fast
step "maven verify (jar with native library, Java unit + integration tests)" \
  "${MVN[@]}" verify -Dcargo.profile=dev
# A short chaos soak with a fresh seed each run (printed, with the command that replays it); the
# hour-long soak does not fit a run: scripts/soak.sh --minutes 60 (docs/reliability.md).
echo "==> chaos soak this run: 3 minutes, a fault every 12 s on average (the hour-long one, not in this run: scripts/soak.sh --minutes 60)"
step "chaos soak (3 minutes of random, overlapping faults; its seed is printed)" \
  bash scripts/soak.sh --minutes 3 --mean-gap-seconds 12
# The other Flink lines by turns (the commit count picks): one runs every ITCase of the connector
# and the SQL jar, as 2.2 did above (it needs the multi-process cluster, so it runs here), the
# other its main ITCases at the end. All of it on every line: scripts/flink-lines.sh --full 1.20 2.3.
flink_lines=(1.20 2.3)
turn=$(( $(git rev-list --count HEAD 2> /dev/null || echo 0) % ${#flink_lines[@]} ))
full_line=${flink_lines[$turn]}
main_lines=("${flink_lines[@]:0:$turn}" "${flink_lines[@]:$((turn + 1))}")
echo "==> other Flink lines this run: every ITCase on $full_line, the main ITCases on ${main_lines[*]} (by turns; all of it: scripts/flink-lines.sh --full ${flink_lines[*]})"
step "Flink $full_line: unit tests and every ITCase of the connector and the SQL jar (this run's turn)" \
  bash scripts/flink-lines.sh --full "$full_line"
# The soak and the full line were its last users: free its ~2 GB and its idle CPU for the rest.
step "stop multi-process Vitess" stop_multi_cluster_if_started_here
step "native bridge tests again under -Xcheck:jni (fails on any JNI warning)" \
  "${MVN[@]}" verify -Dcargo.profile=dev -Pxcheck-jni -pl java/vitess-cdc-connector
step "the bridge's server-free tests in a linux-aarch64 JVM under qemu-user (the jar's aarch64 library)" \
  bash scripts/aarch64-jvm-tests.sh
step "end-to-end scenarios" bash tests/e2e/run.sh
# One older Vitess line a run, by turns (the commit count picks it); scripts/vitess-lines.sh with
# no argument runs every line.
older_lines=(v0.23.3 v0.22.4)
older=${older_lines[$(( $(git rev-list --count HEAD 2> /dev/null || echo 0) % ${#older_lines[@]} ))]}
echo "==> older Vitess line this run: $older (by turns: ${older_lines[*]}; all of them: scripts/vitess-lines.sh)"
step "an older Vitess line ($older): the core's live tests and the main ITCases against its vttestserver" \
  bash scripts/vitess-lines.sh "$older"
step "the demo (the README's first command), 10 s of writes: exits non-zero unless IN SYNC" \
  env DEMO_SECONDS=10 DEMO_CARGO_PROFILE=dev bash scripts/demo.sh
# Two slow checks of what seldom changes, by turns (the commit count picks; the bridge's aarch64
# library runs in a JVM under qemu every run, above): the Rust unit tests under qemu-user
# (~150 s) or the fuzz smoke (~85 s). Both in one run: BOTH_TURNS=1 scripts/test.sh.
aarch64_unit_tests=(cargo test --target aarch64-unknown-linux-gnu -p vitess-cdc-core -p vitess-cdc-jni --all-features --lib)
slow_turn=$(( $(git rev-list --count HEAD 2> /dev/null || echo 0) % 2 ))
[ "${BOTH_TURNS:-0}" != 1 ] || slow_turn=both
case $slow_turn in
  0) echo "==> slow check this run: the fuzz smoke (by turns with the aarch64 Rust unit tests: ${aarch64_unit_tests[*]}; both: BOTH_TURNS=1)" ;;
  1) echo "==> slow check this run: the aarch64 Rust unit tests (by turns with the fuzz smoke: scripts/fuzz.sh smoke; both: BOTH_TURNS=1)" ;;
esac
if [ "$slow_turn" != 0 ]; then
  step "the core's and the bridge's Rust unit tests built for linux-aarch64, run under qemu-user" \
    "${aarch64_unit_tests[@]}"
fi
if [ "$slow_turn" != 1 ]; then
  step "fuzz smoke (every rust/fuzz target for a few seconds over its committed corpus)" bash scripts/fuzz.sh smoke
fi
step "Flink ${main_lines[*]}: unit tests and the main ITCases" bash scripts/flink-lines.sh "${main_lines[@]}"
