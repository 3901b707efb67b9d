#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Operator-style faults on the running multi-process cluster, each by pid, each returning once
# the cluster serves again (what an operator would wait for). Each prints what it did and how
# long it took.
#
#   fault.sh restart-vtgate [DOWN_SECS]     kill -9 the plaintext VTGate, wait DOWN_SECS (default
#                                           2), start it again; returns when it serves every shard
#   fault.sh prs KEYSPACE/SHARD             PlannedReparentShard to the shard's other tablet
#   fault.sh ers KEYSPACE/SHARD             kill -9 the PRIMARY's mysqld, EmergencyReparentShard to
#                                           the other tablet, then replace the dead tablet by a
#                                           fresh REPLICA (new alias; it replicates from the start)
#   fault.sh restart-replica KEYSPACE/SHARD kill -9 the shard's REPLICA vttablet and start it again
#   fault.sh tablet-flags KEYSPACE/SHARD [FLAG...]
#                                           restart the shard's vttablets (REPLICA first, mysqld
#                                           stays up) with these extra flags, kept for their later
#                                           restarts; no FLAG: back to the defaults. E.g.
#                                           --vreplication-copy-phase-duration=2s (copies cut)
#   fault.sh freeze KEYSPACE/SHARD SECS [primary|replica]
#                                           SIGSTOP the shard's vttablet of that type (default
#                                           primary) for SECS, then SIGCONT; returns when the shard
#                                           serves writes again
#   fault.sh primary KEYSPACE/SHARD         print the uid of the shard's PRIMARY
#
# The TLS gate's MySQL port ($VT_CLUSTER_TLS_MYSQL_PORT) stays up through restart-vtgate: writers
# that must outlive it use that one.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
# shellcheck source=tablets.sh
source "$HERE/tablets.sh"
T0=$SECONDS

usage() { sed -n '4,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage

# uid_of KEYSPACE/SHARD TYPE: the uid of the shard's (first) tablet of that type.
uid_of() {
  local uid
  uid=$(tablets_of "$1" | awk -v t="$2" '$2 == t {print $1; exit}')
  [ -n "$uid" ] || die "$1 has no $2 tablet: $(tablets_of "$1" | xargs)"
  echo "$uid"
}

# The shard serves writes = a query on its PRIMARY through the TLS gate's MySQL port answers.
shard_serves() {
  mariadb --no-defaults -h 127.0.0.1 -P "$VT_CLUSTER_TLS_MYSQL_PORT" -u vitess-cdc -N \
    -e "SELECT 1 FROM dual" "${1%%/*}:${1#*/}@primary"
}

restart_vtgate() {
  local down=${1:-2} pid
  pid=$(live_pid "$PIDS_DIR/vtgate.pid") || die "the plaintext VTGate is not running"
  kill -KILL "$pid"
  while kill -0 "$pid" 2> /dev/null; do sleep 0.1; done
  say "VTGate (pid $pid) killed with SIGKILL; down for ${down}s"
  sleep "$down"
  start_plain_vtgate
  wait_for "VTGate (pid $(cat "$PIDS_DIR/vtgate.pid"))" 120 cluster_ready || die "VTGate did not serve again; see $LOGS_DIR/vtgate.log"
}

prs() {
  local shard=$1 from to
  from=$(uid_of "$shard" primary)
  to=$(uid_of "$shard" replica)
  vt_cluster_ctl PlannedReparentShard --new-primary "$(tablet_alias "$to")" "$shard" > "$LOGS_DIR/fault-prs.log" 2>&1 \
    || { cat "$LOGS_DIR/fault-prs.log" >&2; die "PlannedReparentShard $shard failed"; }
  say "PlannedReparentShard $shard: primary $from -> $to"
  wait_for "$shard writes" 60 shard_serves "$shard" || die "$shard does not serve writes after the reparent"
}

ers() {
  local shard=$1 dead to pid g
  dead=$(uid_of "$shard" primary)
  to=$(uid_of "$shard" replica)
  pid=$(live_pid "$(mysqld_pid_file "$dead")") || die "the mysqld of $shard's primary $dead does not run"
  kill -KILL "$pid"
  say "mysqld of $shard's primary $dead (pid $pid) killed with SIGKILL"
  vt_cluster_ctl EmergencyReparentShard --new-primary "$(tablet_alias "$to")" --wait-replicas-timeout 10s "$shard" \
    > "$LOGS_DIR/fault-ers.log" 2>&1 || { cat "$LOGS_DIR/fault-ers.log" >&2; die "EmergencyReparentShard $shard failed"; }
  say "EmergencyReparentShard $shard: primary $dead -> $to"
  wait_for "$shard writes" 60 shard_serves "$shard" || die "$shard does not serve writes after the reparent"
  # The dead tablet goes (its data may hold transactions the new primary never got); a fresh
  # replica of a tablet group never used takes its place and replicates the binlogs from the start.
  stop_tablets "$dead"
  vt_cluster_ctl DeleteTablets --allow-primary "$(tablet_alias "$dead")" > /dev/null
  rm -rf "$(tablet_dir "$dead")"
  g=$(free_group)
  echo "$g" >> "$VT_CLUSTER_RUN/groups-used"
  start_tablets "$((100 * g)):${shard%%/*}:${shard#*/}"
  vt_cluster_ctl ReparentTablet "$(tablet_alias $((100 * g)))" > /dev/null 2>&1 || true
  wait_for "replica $((100 * g)) of $shard" 60 replica_healthy "$shard" $((100 * g)) \
    || die "the new replica $((100 * g)) of $shard is not serving; see $LOGS_DIR/vttablet-$((100 * g)).log"
}

# replica_healthy KEYSPACE/SHARD UID: the tablet is a REPLICA in the topology and replicates.
replica_healthy() {
  tablets_of "$1" | grep -qx "$2 replica" \
    && vt_cluster_ctl GetFullStatus "$(tablet_alias "$2")" | jq -e '.replication_status | .io_state == 3 and .sql_state == 3 and (.replication_lag_seconds // 0) < 5' > /dev/null
}

restart_replica() {
  local shard=$1 uid pid
  uid=$(uid_of "$shard" replica)
  pid=$(live_pid "$PIDS_DIR/vttablet-$uid.pid") || die "the vttablet of $shard's replica $uid does not run"
  kill -KILL "$pid"
  while kill -0 "$pid" 2> /dev/null; do sleep 0.1; done
  say "vttablet of $shard's replica $uid (pid $pid) killed with SIGKILL"
  start_vttablet "$uid:${shard%%/*}:${shard#*/}"
  wait_for "vttablet $uid" 90 tablet_registered "$uid" || die "vttablet $uid did not come up; see $LOGS_DIR/vttablet-$uid.log"
  wait_for "replica $uid of $shard" 60 replica_healthy "$shard" "$uid" || die "replica $uid of $shard does not replicate"
}

# tablet_flags KEYSPACE/SHARD [FLAG...]: each vttablet of the shard stopped (SIGTERM: it leaves
# the serving graph cleanly) and started again with the flags; returns when the shard serves
# writes and its replica replicates again.
tablet_flags() {
  local shard=$1 uid pid primary replica
  shift
  primary=$(uid_of "$shard" primary)
  replica=$(uid_of "$shard" replica)
  for uid in "$replica" "$primary"; do
    if [ $# -gt 0 ]; then printf '%s\n' "$@" > "$(tablet_flags_file "$uid")"; else rm -f "$(tablet_flags_file "$uid")"; fi
    pid=$(live_pid "$PIDS_DIR/vttablet-$uid.pid") || die "the vttablet $uid of $shard does not run"
    kill -TERM "$pid"
    while kill -0 "$pid" 2> /dev/null; do sleep 0.1; done
    start_vttablet "$uid:${shard%%/*}:${shard#*/}"
    wait_for "vttablet $uid" 90 tablet_registered "$uid" || die "vttablet $uid did not come up; see $LOGS_DIR/vttablet-$uid.log"
    say "vttablet $uid of $shard restarted with ${*:-its default flags}"
  done
  wait_for "$shard writes" 60 shard_serves "$shard" || die "$shard does not serve writes after its tablets restarted"
  wait_for "replica $replica of $shard" 60 replica_healthy "$shard" "$replica" || die "replica $replica of $shard does not replicate"
  wait_for "VTGate serving every shard" 60 cluster_ready || die "VTGate does not serve every shard again"
}

# freeze KEYSPACE/SHARD SECS TYPE: the tablet hangs (a stuck process, a paused VM) rather than
# dies: its connections stay open and nothing answers on them until it goes on.
freeze() {
  local shard=$1 secs=$2 type=${3:-primary} uid pid
  uid=$(uid_of "$shard" "$type")
  pid=$(live_pid "$PIDS_DIR/vttablet-$uid.pid") || die "the vttablet $uid of $shard does not run"
  kill -STOP "$pid"
  say "vttablet of $shard's $type $uid (pid $pid) frozen with SIGSTOP for ${secs}s"
  sleep "$secs"
  kill -CONT "$pid"
  say "vttablet $uid continued (SIGCONT)"
  wait_for "$shard writes" 60 shard_serves "$shard" || die "$shard does not serve writes after its tablet went on"
}

case "$1" in
  restart-vtgate) [ $# -le 2 ] || usage; restart_vtgate "${2:-2}" ;;
  prs) [ $# = 2 ] || usage; prs "$2" ;;
  ers) [ $# = 2 ] || usage; ers "$2" ;;
  restart-replica) [ $# = 2 ] || usage; restart_replica "$2" ;;
  tablet-flags) [ $# -ge 2 ] || usage; tablet_flags "${@:2}" ;;
  freeze) [ $# -ge 3 ] && [ $# -le 4 ] || usage; freeze "$2" "$3" "${4:-primary}" ;;
  primary) [ $# = 2 ] || usage; uid_of "$2" primary; exit 0 ;;
  *) usage ;;
esac
say "$1 ${2:-} done in $((SECONDS - T0))s"
