#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Reshards a keyspace of the running multi-process cluster, step by step, the way an operator
# does it (VReplication's Reshard workflow). Each step prints what it did and how long it took.
#
#   reshard.sh all      KEYSPACE FROM TO   every step below, in order
#   reshard.sh prepare  KEYSPACE TO        a PRIMARY and a REPLICA tablet for each new shard
#   reshard.sh create   KEYSPACE FROM TO   Reshard create; returns when the copy is done and
#                                          the workflow replicates
#   reshard.sh switch   KEYSPACE           SwitchTraffic for all tablet types: the old shards
#                                          journal (VStreams see the reshard here)
#   reshard.sh complete KEYSPACE FROM      Reshard complete, then the old shards' tablets stop
#                                          and the old shards leave the topology
#   reshard.sh cancel   KEYSPACE TO        before switch: Reshard cancel, then the new shards'
#                                          tablets stop and the new shards leave the topology
#                                          (a copy that did not finish; refused once TO serves)
#   reshard.sh restore  KEYSPACE LAYOUT    whatever an interrupted run left, back to LAYOUT: a
#                                          workflow not switched is cancelled, a switched one
#                                          completed, shards prepared for none retired, then a
#                                          reshard to LAYOUT if other shards serve
# FROM and TO are comma-separated shard lists, e.g.
#   reshard.sh all customer -80,80- -40,40-80,80-c0,c0-
#   reshard.sh all customer -40,40-80,80-c0,c0- -80,80-
# The workflow is named KEYSPACE_reshard.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=env.sh
source "$HERE/env.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
# shellcheck source=tablets.sh
source "$HERE/tablets.sh"
T0=$SECONDS

usage() { sed -n '5,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
step=$1 keyspace=$2
workflow="${keyspace}_reshard"
# A step may begin while a VTGate restarts (an operator's reshard overlapping an outage): wait
# for the cluster to serve, up to 2 minutes, before calling it not running.
status_ok() { bash "$HERE/status.sh" > /dev/null 2>&1; }
wait_for "the cluster serving" 120 status_ok \
  || die "the cluster is not running and ready: start it with tests/vitess/cluster/up.sh"

# The uids of a shard's tablets, from the topology.
tablets_of_shard() { tablets_of "$keyspace/$1" | awk '{print $1}'; }

do_prepare() {
  local to=$1 shard g specs=() claimed=()
  for shard in ${to//,/ }; do
    if [ -n "$(tablets_of_shard "$shard")" ]; then
      say "$keyspace/$shard already has tablets"
      continue
    fi
    # Its data dirs appear only when the tablets start: skip the groups claimed so far.
    g=$(free_group "${claimed[@]}")
    claimed+=("$g")
    echo "$g" >> "$VT_CLUSTER_RUN/groups-used"
    specs+=("$((100 * g)):$keyspace:$shard" "$((100 * g + 1)):$keyspace:$shard")
  done
  [ ${#specs[@]} -gt 0 ] || return 0
  start_tablets "${specs[@]}"
  local pids=() t
  for shard in ${to//,/ }; do
    for t in "${specs[@]}"; do
      if [ "$(spec_shard "$t")" = "$shard" ]; then
        elect_primary "$keyspace/$shard" "$(spec_uid "$t")" &
        pids+=($!)
        break
      fi
    done
  done
  wait_all "electing primaries of the new shards" "${pids[@]}"
  say "new shards $to: tablets ${specs[*]}, primaries elected"
}

workflow_show() { vt_cluster_ctl Workflow --keyspace "$keyspace" show --workflow "$workflow"; }

# The state of every stream of the workflow, one per line (Copying, Running, Error, ...); a
# stream that says Running before its copy began (no position yet: the copy has not started, its
# copy states are not written yet) or while copy states remain is "Running/not-copied".
stream_states() {
  workflow_show | jq -r '.workflows[].shard_streams[].streams[]
    | if .state == "Running" and ((.position // "") != "") and (((.copy_states // []) | length) == 0)
      then "Running" else (.state + "/not-copied") end'
}
# Copied = every stream of the workflow replicates from a position after its copy (none still
# copying or about to, none in error). A stream is Running for a moment after create, before its
# copy starts; SwitchTraffic then does not refuse, and completing would lose the rows never copied.
workflow_replicating() {
  local states
  states=$(stream_states 2> /dev/null) || return 1
  [ -n "$states" ] && ! grep -qv '^Running$' <<< "$states"
}

do_create() {
  local from=$1 to=$2
  vt_cluster_ctl Reshard --workflow "$workflow" --target-keyspace "$keyspace" create \
    --source-shards "$from" --target-shards "$to" > "$LOGS_DIR/reshard-create.log"
  say "Reshard create $keyspace $from -> $to (workflow $workflow)"
  # A growing table copied while the cluster is busy (or its source tablets reparented) takes
  # minutes on two cores; VT_RESHARD_COPY_SECS bounds the wait.
  local limit=${VT_RESHARD_COPY_SECS:-480}
  wait_for "copy of $keyspace into $to" "$limit" workflow_replicating \
    || { workflow_show >&2 || true; die "the workflow did not finish copying in ${limit}s (reshard.sh cancel $keyspace $to undoes it)"; }
}

do_cancel() {
  local to=$1 shard uid uids=()
  for shard in ${to//,/ }; do
    if vt_cluster_ctl GetShard "$keyspace/$shard" 2> /dev/null | jq -e '.shard.is_primary_serving == true' > /dev/null; then
      die "$keyspace/$shard serves traffic already: a switched reshard is completed or reversed, not cancelled"
    fi
    for uid in $(tablets_of_shard "$shard"); do uids+=("$uid"); done
  done
  if vt_cluster_ctl Reshard --workflow "$workflow" --target-keyspace "$keyspace" cancel \
    > "$LOGS_DIR/reshard-cancel.log" 2>&1; then
    say "Reshard cancel"
  else
    say "Reshard cancel: no workflow to cancel ($(tail -1 "$LOGS_DIR/reshard-cancel.log"))"
  fi
  retire_shards new "$to" "${uids[@]}"
}

do_switch() {
  local attempt=0 copying_until=$((SECONDS + 300))
  # Right after create, SwitchTraffic can fail transiently (a target's VReplication lag not yet
  # measured, a tablet's health not yet seen by vtctld): it changes nothing then; try again. A
  # workflow can look replicating while its copy still runs (big tables): that refusal is waited
  # out for up to 300s.
  while ! vt_cluster_ctl Reshard --workflow "$workflow" --target-keyspace "$keyspace" switchtraffic \
    > "$LOGS_DIR/reshard-switch.log" 2>&1; do
    if grep -q 'copy is still in progress' "$LOGS_DIR/reshard-switch.log" && [ "$SECONDS" -lt "$copying_until" ]; then
      say "SwitchTraffic: the copy is still in progress; retrying in 3s"
    else
      attempt=$((attempt + 1))
      [ "$attempt" -lt 6 ] || { cat "$LOGS_DIR/reshard-switch.log" >&2; die "SwitchTraffic failed 6 times"; }
      say "SwitchTraffic failed (attempt $attempt): $(tail -1 "$LOGS_DIR/reshard-switch.log"); retrying in 3s"
    fi
    sleep 3
  done
  say "SwitchTraffic: $(serving_shards) serve"
}

do_complete() {
  local from=$1 shard uid uids=()
  # Reshard complete removes the old shards and their tablets from the topology (their
  # processes keep running): note the tablets first.
  for shard in ${from//,/ }; do
    for uid in $(tablets_of_shard "$shard"); do uids+=("$uid"); done
  done
  vt_cluster_ctl Reshard --workflow "$workflow" --target-keyspace "$keyspace" complete \
    > "$LOGS_DIR/reshard-complete.log"
  say "Reshard complete"
  retire_shards old "$from" "${uids[@]}"
}

# retire_shards WHICH SHARDS [UID...]: the tablets stop and their data goes, then the shards leave
# the topology (after complete: the old ones; after cancel: the new ones).
retire_shards() {
  local which=$1 shards=$2 shard uid
  shift 2
  if [ $# -gt 0 ]; then
    stop_tablets "$@"
    for uid in "$@"; do rm -rf "$(tablet_dir "$uid")"; done
  fi
  for shard in ${shards//,/ }; do
    if vt_cluster_ctl GetShard "$keyspace/$shard" > /dev/null 2>&1; then
      vt_cluster_ctl DeleteShards --recursive "$keyspace/$shard" > /dev/null
    fi
  done
  say "$which shards $shards: tablets ${*:-none} stopped, shards gone; serving: $(serving_shards)"
}

# The keyspace's shards in the topology: "SHARD true" for those whose primary serves, "SHARD
# false" for the others (new shards before SwitchTraffic, old ones after it), in key order.
topology_shards() {
  vt_cluster_ctl FindAllShardsInKeyspace "$keyspace" \
    | jq -r '.shards | to_entries[] | "\(.key) \(.value.shard.is_primary_serving == true)"' \
    | LC_ALL=C sort
}

do_restore() {
  local layout=$1 shards serving idle targets
  shards=$(topology_shards) || die "cannot read $keyspace's shards from the topology"
  serving=$(awk '$2 == "true" {print $1}' <<< "$shards" | paste -sd, -)
  idle=$(awk '$2 != "true" {print $1}' <<< "$shards" | paste -sd, -)
  if vt_cluster_ctl Workflow --keyspace "$keyspace" list 2> /dev/null | grep -q "\"$workflow\""; then
    targets=$(workflow_show | jq -r '[.workflows[].target.shards[]] | unique | join(",")')
    if [ -n "$idle" ] && [ "$idle" = "$targets" ]; then
      say "restore: $workflow was not switched: cancelling it"
      do_cancel "$idle"
    elif [ -n "$idle" ]; then
      say "restore: $workflow was switched ($serving serve): completing it"
      do_complete "$idle"
    else
      die "restore: $workflow exists but every shard serves ($serving): see Workflow show"
    fi
  elif [ -n "$idle" ]; then
    say "restore: shards $idle serve no traffic and no workflow uses them: retiring them"
    retire_shards unused "$idle" $(for s in ${idle//,/ }; do tablets_of_shard "$s"; done)
  fi
  serving=$(topology_shards | awk '$2 == "true" {print $1}' | paste -sd, -)
  if [ "$(sorted_list "$serving")" = "$(sorted_list "$layout")" ]; then
    say "restore: $keyspace serves $layout"
    return 0
  fi
  say "restore: $keyspace serves $serving: resharding it to $layout"
  do_prepare "$layout"
  do_create "$serving" "$layout"
  do_switch
  do_complete "$serving"
  say "restore: $keyspace serves $layout in $((SECONDS - T0))s"
}

sorted_list() { tr , '\n' <<< "$1" | LC_ALL=C sort | paste -sd, -; }

serving_shards() { vt_cluster_mysql -N -e 'SHOW VITESS_SHARDS' | grep "^$keyspace/" | xargs; }

case "$step" in
  prepare) [ $# = 3 ] || usage; do_prepare "$3" ;;
  create) [ $# = 4 ] || usage; do_create "$3" "$4" ;;
  switch) [ $# = 2 ] || usage; do_switch ;;
  complete) [ $# = 3 ] || usage; do_complete "$3" ;;
  cancel) [ $# = 3 ] || usage; do_cancel "$3" ;;
  restore) [ $# = 3 ] || usage; do_restore "$3" ;;
  all)
    [ $# = 4 ] || usage
    do_prepare "$4"
    do_create "$3" "$4"
    do_switch
    do_complete "$3"
    say "resharded $keyspace from $3 to $4 in $((SECONDS - T0))s"
    ;;
  *) usage ;;
esac
