# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Tablets of the multi-process cluster: start (mysqld via mysqlctl, then vttablet), stop, elect a
# primary. Used by up.sh and reshard.sh; needs env.sh and lib.sh sourced first.
# A tablet spec is uid:keyspace:shard (see VT_CLUSTER_TABLETS in env.sh).

spec_uid() { echo "${1%%:*}"; }
spec_keyspace() { local r=${1#*:}; echo "${r%%:*}"; }
spec_shard() { echo "${1##*:}"; }

keyspaces_of() { local t; for t in $1; do spec_keyspace "$t"; done | awk '!seen[$0]++'; }
# keyspace/shard of every spec, in order, once each.
shards_of() { local t; for t in $1; do echo "$(spec_keyspace "$t")/$(spec_shard "$t")"; done | awk '!seen[$0]++'; }
first_tablet_of() {
  local t
  for t in $2; do
    [ "$(spec_keyspace "$t")/$(spec_shard "$t")" = "$1" ] && { spec_uid "$t"; return 0; }
  done
  return 1
}

# wait_all WHAT PID...: waits for these background jobs; fails naming WHAT if any failed.
# (Not `jobs -p`: the servers started with start_daemon are background jobs too.)
wait_all() {
  local what=$1 failed=0 job
  shift
  for job in "$@"; do wait "$job" || failed=1; done
  [ $failed = 0 ] || die "$what failed; logs in $LOGS_DIR"
}

# How many mysqld initialisations or primary elections run at once: all of a test cluster's
# (6 tablets), but not the 64 of a benchmark's 64 shards on two cores, where mysqlctl's and
# PlannedReparentShard's own timeouts would run out.
VT_CLUSTER_PARALLEL=${VT_CLUSTER_PARALLEL:-8}

# start_tablets SPEC...: a fresh mysqld for each (VT_CLUSTER_PARALLEL at a time), then a vttablet
# for each; returns when every tablet is registered in the topology and its vttablet serves HTTP.
start_tablets() {
  local t uid inits=()
  for t in "$@"; do
    uid=$(spec_uid "$t")
    # mysqlctl init creates the data dir, starts mysqld (which outlives mysqlctl) and runs
    # init_db.sql (the Vitess users and databases).
    run_as "$VTROOT/bin/mysqlctl" --tablet-uid "$uid" --mysql-port "$(tablet_mysql_port "$uid")" \
      --log-format text init --init-db-sql-file "$VTROOT/config/init_db.sql" \
      > "$LOGS_DIR/mysqlctl-$uid.log" 2>&1 &
    inits+=($!)
    if [ ${#inits[@]} -ge "$VT_CLUSTER_PARALLEL" ]; then
      wait_all "mysqlctl init (mysqld start) of $*" "${inits[@]}"
      inits=()
    fi
  done
  wait_all "mysqlctl init (mysqld start) of $*" "${inits[@]}"
  say "mysqld started for tablets $(for t in "$@"; do spec_uid "$t"; done | xargs)"
  for t in "$@"; do start_vttablet "$t"; done
  for t in "$@"; do
    uid=$(spec_uid "$t")
    wait_for "vttablet $(tablet_alias "$uid") ($(spec_keyspace "$t")/$(spec_shard "$t"))" 90 \
      tablet_registered "$uid" || die "vttablet $uid did not come up; see $LOGS_DIR/vttablet-$uid.log"
  done
}

# start_vttablet SPEC: the vttablet of a tablet whose mysqld runs (a fresh one, or the same
# tablet again after a restart: it finds its type and replication in the topology and mysqld).
# --track-schema-versions: VStreams decode rows written before a DDL with the schema of their
# time (a job restored from a checkpoint before an ALTER), as production tablets should.
# Extra flags of a tablet (fault.sh tablet-flags) are kept in a file of its own, one per line, so
# every later restart of that tablet (a fault, a reparent's replacement) keeps them.
start_vttablet() {
  local t=$1 uid extra=()
  uid=$(spec_uid "$t")
  [ -f "$(tablet_flags_file "$uid")" ] && mapfile -t extra < "$(tablet_flags_file "$uid")"
  start_daemon "vttablet-$uid" "$VTROOT/bin/vttablet" "${TOPO_FLAGS[@]}" \
    --tablet-path "$(tablet_alias "$uid")" --tablet-hostname 127.0.0.1 \
    --init-keyspace "$(spec_keyspace "$t")" --init-shard "$(spec_shard "$t")" --init-tablet-type replica \
    --port "$(tablet_http_port "$uid")" --grpc-port "$(tablet_grpc_port "$uid")" \
    --bind-address 127.0.0.1 --grpc-bind-address 127.0.0.1 \
    --service-map grpc-queryservice,grpc-tabletmanager,grpc-updatestream \
    --health-check-interval 2s --heartbeat-on-demand-duration 5s --enable-replication-reporter \
    --track-schema-versions \
    --pid-file "$VT_CLUSTER_RUN/tmp/vttablet-$uid.pid" --log-format text "${extra[@]}"
}

tablet_flags_file() { echo "$VT_CLUSTER_RUN/vttablet-$1.flags"; }

# A tablet group (uids 100g, 100g+1) never used in this cluster's life (groups-used, kept by
# up.sh, reshard.sh and fault.sh) and not among the groups given (claimed already). New tablets
# get new aliases, as in production, so no VTGate health-check entry of a deleted tablet can be
# mistaken for a new one; once all 25 were used, the group retired longest ago.
free_group() {
  local g used
  used=$(vt_cluster_ctl GetTablets 2> /dev/null | awk '{print $1}')
  # retired GROUP: its tablets are gone from the topology and the disk.
  retired() {
    [ -e "$(tablet_dir $((100 * $1)))" ] || [ -e "$(tablet_dir $((100 * $1 + 1)))" ] && return 1
    ! grep -q "$(tablet_alias $((100 * $1)))\|$(tablet_alias $((100 * $1 + 1)))" <<< "$used"
  }
  for g in $(seq 1 25); do
    [[ " $* " == *" $g "* ]] && continue
    grep -qx "$g" "$VT_CLUSTER_RUN/groups-used" 2> /dev/null && continue
    retired "$g" || continue
    echo "$g"
    return 0
  done
  # All used once (a long soak: every reshard and emergency reparent takes new tablets): the
  # group retired longest ago comes back. VTGate may still hold its alias's old tablet for a
  # moment; the connector retries that ("no healthy tablet", "either down or nonexistent").
  for g in $(cat "$VT_CLUSTER_RUN/groups-used" 2> /dev/null); do
    [[ " $* " == *" $g "* ]] && continue
    retired "$g" || continue
    grep -vx "$g" "$VT_CLUSTER_RUN/groups-used" > "$VT_CLUSTER_RUN/groups-used.tmp" || true
    mv "$VT_CLUSTER_RUN/groups-used.tmp" "$VT_CLUSTER_RUN/groups-used"
    echo "$g"
    return 0
  done
  die "no tablet group free (uids 100..2501 all hold tablets): stop some, or restart the cluster with down.sh and up.sh"
}

# tablets_of KEYSPACE/SHARD: "uid type" of each of the shard's tablets, from the topology.
tablets_of() {
  # (a shard not in the topology has none; vtctldclient says so on stderr)
  vt_cluster_ctl GetTablets --keyspace "${1%%/*}" --shard "${1#*/}" 2> /dev/null \
    | awk '{sub(/.*-0*/, "", $1); print $1, $4}'
}

tablet_registered() {
  http_ok "$(tablet_http_port "$1")" && vt_cluster_ctl GetTablet "$(tablet_alias "$1")" > /dev/null
}

# elect_primary KEYSPACE/SHARD UID: makes tablet UID the shard's first PRIMARY. PlannedReparentShard
# initializes a shard that has none (InitShardPrimary's successor); the tablets must be replicas
# in the topology first, and may need a moment to report their replication status.
elect_primary() {
  local shard=$1 uid=$2 i
  for i in $(seq 1 20); do
    if vt_cluster_ctl PlannedReparentShard --new-primary "$(tablet_alias "$uid")" "$shard" \
      > "$LOGS_DIR/prs-${shard//\//_}.log" 2>&1; then
      return 0
    fi
    sleep 1
  done
  echo "cluster $SCRIPT_NAME: PlannedReparentShard $shard to $(tablet_alias "$uid") failed:" >&2
  cat "$LOGS_DIR/prs-${shard//\//_}.log" >&2
  return 1
}

# stop_tablets UID...: stops their vttablets (together), then their mysqlds (together).
stop_tablets() {
  local uid pid vttablets=() mysqlds=()
  for uid in "$@"; do
    if pid=$(live_pid "$PIDS_DIR/vttablet-$uid.pid"); then vttablets+=("$pid"); fi
    rm -f "$PIDS_DIR/vttablet-$uid.pid"
  done
  if [ ${#vttablets[@]} -gt 0 ]; then
    say "stopping vttablets $* (pids ${vttablets[*]})"
    stop_pids vttablets "${vttablets[@]}"
  fi
  for uid in "$@"; do
    if pid=$(live_pid "$(mysqld_pid_file "$uid")"); then mysqlds+=("$pid"); fi
  done
  if [ ${#mysqlds[@]} -gt 0 ]; then
    say "stopping the mysqlds of tablets $* (pids ${mysqlds[*]})"
    stop_pids mysqlds "${mysqlds[@]}"
  fi
}
