# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Shared by scripts/*.sh: repo paths, caches, timed steps. Source it.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../tests/vitess/env.sh
source "$REPO/tests/vitess/env.sh"
# shellcheck source=../tests/vitess/cluster/env.sh
source "$REPO/tests/vitess/cluster/env.sh"
# shellcheck source=../tests/mysql/env.sh
source "$REPO/tests/mysql/env.sh"

# Build caches live outside the checkout, so a fresh clone (CI) reuses what an earlier run built
# on the same machine, and a fresh machine simply builds everything once.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$VITESS_CDC_CACHE/cargo-target}
export CARGO_TERM_COLOR=never
MVN=(mvn -B -q -ntp "-Dcargo.target.dir=$CARGO_TARGET_DIR")

declare -a STEP_TIMES=()
step() {
  local name=$1; shift
  local t=$SECONDS
  echo "==> $name"
  "$@"
  STEP_TIMES+=("$(printf '%5ds  %s' $((SECONDS - t)) "$name")")
}
print_step_times() {
  echo "==> step timings"
  printf '%s\n' "${STEP_TIMES[@]}"
}

# The failed Java tests' reports (exception, message, first frames), printed last so that a CI
# log cut to its tail still says why a test failed, not only which; a forked JVM that died
# (failsafe's "terminated without properly saying goodbye") is named with its dump files.
print_test_failures() {
  local report
  for report in "$REPO"/java/*/target/{surefire,failsafe}-reports/*.txt; do
    [ -f "$report" ] || continue
    if grep -qE '<<< (FAILURE|ERROR)!' "$report"; then
      echo "==> failed: ${report#"$REPO"/}"
      # awk, not head: head closing the pipe early would make grep's SIGPIPE this script's status.
      grep -vE '^\s+at (org\.junit|java\.base|org\.apache\.maven|jdk\.internal|org\.assertj)' "$report" \
        | awk 'NR <= 40' || true
    fi
  done
  for report in "$REPO"/java/*/target/{surefire,failsafe}-reports/*.dump* "$REPO"/java/*/hs_err_pid*.log; do
    [ -f "$report" ] || continue
    echo "==> JVM report: ${report#"$REPO"/}"
    awk 'NR <= 20' "$report" || true
  done
  print_failure_causes
}

# The last lines of a red run: each failed test with its messages and their causes, no stack
# frames (a long trace above may be cut where the run's output is shown short; these are not).
print_failure_causes() {
  local report failed=0
  for report in "$REPO"/java/*/target/{surefire,failsafe}-reports/*.txt; do
    [ -f "$report" ] || continue
    grep -qE '<<< (FAILURE|ERROR)!' "$report" || continue
    echo "==> causes: $(basename "$report" .txt)"
    grep -vE '^\s+(at |\.\.\. [0-9]+ more)' "$report" \
      | grep -vE '^(-{5,}|Tests run:|Test set:)' \
      | awk 'length($0) > 400 { $0 = substr($0, 1, 400) "…" } !seen[$0]++ && n++ < 30' || true
    failed=1
  done
  # Why the tests' Flink jobs failed last (test.log: many tests fail jobs on purpose), each cause
  # with its time, to set beside the failed tests' messages above.
  [ "${failed:-0}" = 1 ] || return 0
  for report in "$REPO"/java/*/target/test.log; do
    [ -f "$report" ] || continue
    echo "==> the last job failures in ${report#"$REPO"/}"
    awk '/switched from [A-Z]+ to FAILED with failure cause/ { t = $1; getline; print t " " substr($0, 1, 300) }' \
      "$report" | awk '!seen[substr($0, 14)]++' | tail -n 8 || true
  done
}

# Free space where the tests write (the build caches, the clusters' data, the temp dir the
# native library is extracted to): a full disk fails tests far from their cause.
print_disk_space() {
  echo "==> disk space"
  df -h "${TMPDIR:-/tmp}" "$VITESS_CDC_CACHE" "$REPO" 2> /dev/null | awk '!seen[$0]++'
}

# A local service (a folder with status.sh, up.sh and down.sh) is started unless it runs, and
# stopped at exit only if this script started it (KEEP_CLUSTER=1 keeps it). The flag variable
# named by the caller remembers who started it.
ensure_service() {
  local dir=$1 flag=$2 what=$3
  if bash "$REPO/$dir/status.sh" > /dev/null 2>&1; then
    echo "using the running $what"
  else
    bash "$REPO/$dir/up.sh"
    printf -v "$flag" 1
  fi
}
stop_service_if_started_here() {
  local dir=$1 flag=$2
  if [ "${!flag}" = 1 ] && [ "${KEEP_CLUSTER:-0}" != 1 ]; then
    bash "$REPO/$dir/down.sh"
    printf -v "$flag" 0
  fi
}

# The local Vitess (tests/vitess, vttestserver).
CLUSTER_STARTED_HERE=0
ensure_cluster() { ensure_service tests/vitess CLUSTER_STARTED_HERE "cluster ($VTGATE_GRPC_ADDR)"; }
stop_cluster_if_started_here() { stop_service_if_started_here tests/vitess CLUSTER_STARTED_HERE; }

# The multi-process cluster (tests/vitess/cluster), whose tests need TLS gates and real tablets;
# VT_CLUSTER_* (exported by its env.sh) tell the tests where it is.
MULTI_CLUSTER_STARTED_HERE=0
ensure_multi_cluster() {
  ensure_service tests/vitess/cluster MULTI_CLUSTER_STARTED_HERE "multi-process cluster ($VT_CLUSTER_GRPC_ADDR)"
}
stop_multi_cluster_if_started_here() { stop_service_if_started_here tests/vitess/cluster MULTI_CLUSTER_STARTED_HERE; }

# The standalone MySQL (tests/mysql), the target of the JDBC sink recipe's test; MYSQL_SINK_*
# (exported by its env.sh) tell the tests where it is.
MYSQL_SINK_STARTED_HERE=0
ensure_mysql_sink() {
  ensure_service tests/mysql MYSQL_SINK_STARTED_HERE "standalone MySQL ($MYSQL_SINK_HOST:$MYSQL_SINK_PORT)"
}
stop_mysql_sink_if_started_here() { stop_service_if_started_here tests/mysql MYSQL_SINK_STARTED_HERE; }

check_toolchain() {
  local missing=()
  for t in go cargo java mvn; do command -v "$t" > /dev/null || missing+=("$t"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "missing tools: ${missing[*]} (need Go >= 1.26, Rust stable with clippy+rustfmt, JDK 17, Maven 3.8+)" >&2
    exit 1
  fi
  # The oldest compiler the workspace builds with is its `rust-version`; say so before a long
  # build fails on a language feature.
  local need have
  need=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$REPO/Cargo.toml")
  have=$(rustc --version | awk '{print $2}')
  if [ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
    echo "rustc $have is older than the workspace's rust-version $need: run 'rustup update stable'" >&2
    exit 1
  fi
}
