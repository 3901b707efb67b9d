#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# The seeded chaos soak (docs/reliability.md, "Chaos soak"): a writer and a Flink SQL job on the
# multi-process local Vitess while faults drawn from the seed strike (VTGate kills, reparents, a
# primary's crash, replica restarts, frozen tablets, lost TaskManagers, job crashes, savepoint
# rescales, reshards, signal re-snapshots, added columns, huge transactions), every committed
# record checked against the invariants. Installs and starts the cluster when it is not running
# (and stops it again then).
#
#   scripts/soak.sh [--seed N] [--minutes M] [--mean-gap-seconds S]
#
# --seed      the plan's seed (default: a fresh one, printed); the same seed replays the plan
# --minutes   how long the faults strike (default 4); a long soak: --minutes 60
# --mean-gap-seconds  mean time between faults (default 20)
# Report: java/vitess-cdc-connector/target/soak/report-seed-N.md; on a violation the evidence is in
# java/vitess-cdc-connector/target/soak/seed-N/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"
seed=$(date +%s%N | cut -c1-13) minutes=4 gap=20
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) seed=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --mean-gap-seconds) gap=$2; shift 2 ;;
    *) sed -n '10,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
refuse() { echo "soak.sh: $*" >&2; exit 2; }
[[ $seed =~ ^-?[0-9]+$ ]] || refuse "--seed takes an integer, not '$seed'"
[[ $minutes =~ ^[0-9]+(\.[0-9]+)?$ ]] || refuse "--minutes takes a number of minutes, not '$minutes'"
[[ $gap =~ ^[0-9]+(\.[0-9]+)?$ ]] || refuse "--mean-gap-seconds takes a number of seconds, not '$gap'"
trap 'stop_multi_cluster_if_started_here' EXIT
bash tests/vitess/cluster/install.sh
ensure_multi_cluster
echo "==> chaos soak: seed $seed, $minutes minutes, a fault every ${gap}s on average (replay: scripts/soak.sh --seed $seed --minutes $minutes)"
"${MVN[@]}" verify -Dcargo.profile=dev -Dnative.cross.skip=true -pl java/vitess-cdc-connector \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=VitessChaosSoak -Dfailsafe.failIfNoSpecifiedTests=false -Dtest.natives.its.skip=true \
  -Dsoak.seed="$seed" -Dsoak.minutes="$minutes" -Dsoak.mean-gap-seconds="$gap"
