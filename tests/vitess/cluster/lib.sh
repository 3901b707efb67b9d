# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Process handling shared by the cluster's up.sh, down.sh, status.sh and reshard.sh. Needs env.sh
# sourced first. Every server runs in its own session (setsid), as VT_RUN_AS when we are root
# (mysqlctl refuses root), logs to logs/NAME.log and is known by pids/NAME.pid; its command line
# always names a path inside VT_CLUSTER_RUN, which is how a pid is told apart from a reused one.

SCRIPT_NAME=$(basename "$0" .sh)
die() { echo "cluster $SCRIPT_NAME: $*" >&2; exit 1; }
say() { printf '[cluster %s %3ds] %s\n' "$SCRIPT_NAME" $((SECONDS - ${T0:-0})) "$*"; }

PIDS_DIR="$VT_CLUSTER_RUN/pids"
LOGS_DIR="$VT_CLUSTER_RUN/logs"

AS_USER=()
[ -z "$VT_RUN_AS" ] || AS_USER=(setpriv "--reuid=$VT_RUN_AS" "--regid=$VT_RUN_AS" --init-groups)

# The environment every process of the cluster sees, and nothing else of ours.
CLUSTER_ENV=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  HOME="$VT_CLUSTER_RUN" VTROOT="$VTROOT" VTDATAROOT="$VT_CLUSTER_RUN" VT_MYSQL_ROOT="$VT_MYSQL_ROOT"
  EXTRA_MY_CNF="$VT_CLUSTER_RUN/cluster.cnf")

# start_daemon NAME COMMAND...: starts a server in the background; setsid, setpriv and env
# exec, so $! is the server's own pid.
start_daemon() {
  local name=$1; shift
  setsid "${AS_USER[@]}" "${CLUSTER_ENV[@]}" "$@" > "$LOGS_DIR/$name.log" 2>&1 < /dev/null &
  echo $! > "$PIDS_DIR/$name.pid"
}

# run_as COMMAND...: runs a command to completion with the cluster's user and environment.
run_as() { setsid --wait "${AS_USER[@]}" "${CLUSTER_ENV[@]}" "$@" < /dev/null; }

# live_pid FILE: the pid in FILE if that process runs and its command line names our run dir.
live_pid() {
  local f=$1 pid
  [ -f "$f" ] || return 1
  pid=$(cat "$f" 2> /dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2> /dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | grep -qF "$VT_CLUSTER_RUN/" || return 1
  echo "$pid"
}

# The pid file of tablet UID's mysqld (written by mysqld itself).
mysqld_pid_file() { echo "$(tablet_dir "$1")/mysql.pid"; }

# Every process of this cluster: a Vitess, etcd or MySQL binary of our install whose command
# line names our run dir. Unlike the pid files, this also finds what a killed up.sh or a lost
# pid file left behind.
cluster_pids() {
  local p exe
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    exe=$(readlink "/proc/$p/exe" 2> /dev/null) || continue
    case "$exe" in "$VTROOT/bin/"* | "$MYSQL_SID_ROOT/"*) ;; *) continue ;; esac
    tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | grep -qF -- "$VT_CLUSTER_RUN/" && echo "$p"
  done
  return 0
}

# stop_pids WHAT PID...: TERM all, wait up to 30 s for all, then KILL what is left.
stop_pids() {
  local what=$1; shift
  [ $# -gt 0 ] || return 0
  local pid i left
  kill -TERM "$@" 2> /dev/null || true
  for i in $(seq 1 60); do
    left=()
    for pid in "$@"; do kill -0 "$pid" 2> /dev/null && left+=("$pid"); done
    [ ${#left[@]} -eq 0 ] && return 0
    sleep 0.5
  done
  echo "cluster $SCRIPT_NAME: $what (pids ${left[*]}) did not stop in 30s; killing" >&2
  kill -KILL "${left[@]}" 2> /dev/null || true
}

# pid_kind PID: which server of the cluster a process is (etcd, vtctld, vtgate, vttablet,
# mysqlctl, mysqld), from its executable.
pid_kind() {
  local exe
  exe=$(readlink "/proc/$1/exe" 2> /dev/null) || return 1
  case "$exe" in
    "$MYSQL_SID_ROOT/"*) echo mysqld ;;
    *) basename "$exe" ;;
  esac
}

# stop_kinds KIND...: stops every process of these kinds of this cluster together, known by a pid
# file or not, and removes the kinds' pid files.
stop_kinds() {
  local pid kind k pids=() names=()
  for pid in $(cluster_pids); do
    kind=$(pid_kind "$pid") || continue
    for k in "$@"; do [ "$kind" = "$k" ] && { pids+=("$pid"); names+=("$kind"); }; done
  done
  for kind in "$@"; do
    # mysqld removes its own pid file
    [ "$kind" = mysqld ] || rm -f "$PIDS_DIR/$kind"*.pid
  done
  [ ${#pids[@]} -eq 0 ] && return 0
  say "stopping $(printf '%s\n' "${names[@]}" | sort | uniq -c | awk '{printf "%s%d %s", sep, $1, $2; sep=", "}') (pids ${pids[*]})"
  stop_pids "$*" "${pids[@]}"
}

# Stops everything of this cluster in dependency order: the Vitess servers first (together: each
# spends a few seconds in its graceful shutdown), then the mysqlds, etcd last. The pid files say
# what up.sh started; cluster_pids also finds what a killed up.sh or a lost pid file left
# behind, so this is safe on a half-started, half-dead or already stopped cluster.
stop_everything() {
  stop_kinds vtgate vttablet vtctld mysqlctl
  stop_kinds mysqld
  stop_kinds etcd
}

# start_vtgate NAME HTTP_PORT GRPC_PORT FLAG...: one VTGate of the cluster (pid file NAME.pid).
# It looks for new tablets in the topology every 5 s (default 1 min): a replica that replaces a
# dead tablet, or the new shards' tablets of a reshard, serve within seconds.
start_vtgate() {
  local name=$1 http=$2 grpc=$3
  shift 3
  start_daemon "$name" "$VTROOT/bin/vtgate" "${TOPO_FLAGS[@]}" --cell "$VT_CLUSTER_CELL" \
    --cells-to-watch "$VT_CLUSTER_CELL" --tablet-types-to-wait PRIMARY,REPLICA --service-map grpc-vtgateservice \
    --bind-address 127.0.0.1 --grpc-bind-address 127.0.0.1 --log-format text \
    --tablet-refresh-interval 5s \
    --port "$http" --grpc-port "$grpc" --pid-file "$VT_CLUSTER_RUN/tmp/$name.pid" "$@"
}

# The plaintext VTGate (gRPC and MySQL, no authentication): up.sh starts it, fault.sh restarts it.
start_plain_vtgate() {
  start_vtgate vtgate "$VT_CLUSTER_VTGATE_HTTP_PORT" "$VT_CLUSTER_GRPC_PORT" \
    --mysql-server-port "$VT_CLUSTER_MYSQL_PORT" --mysql-server-bind-address 127.0.0.1 --mysql-auth-server-impl none \
    --vschema-ddl-authorized-users %
}

port_in_use() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
port_owner() {
  local owner
  owner=$(ss -ltnpH "sport = :$1" 2> /dev/null | grep -o 'users:(([^)]*))' | head -1)
  echo "${owner:-an unknown process}"
}

# wait_for WHAT SECONDS COMMAND...: polls COMMAND every 0.5 s until it succeeds.
wait_for() {
  local what=$1 secs=$2; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" > /dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
  say "$what ready"
}

http_ok() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1${2:-/debug/status}"; }

# Ready = the plaintext VTGate serves a query on every shard, and the TLS gates listen.
cluster_ready() {
  port_in_use "$VT_CLUSTER_GRPC_PORT" && port_in_use "$VT_CLUSTER_TLS_GRPC_PORT" \
    && port_in_use "$VT_CLUSTER_MTLS_GRPC_PORT" || return 1
  vt_cluster_mysql -N -e "SELECT COUNT(*) FROM customer.customer; SELECT COUNT(*) FROM commerce.product" \
    > /dev/null 2>&1
}

# Resident memory of every process of the cluster, in MiB.
cluster_rss_mib() {
  local f pid total=0 kb
  for pid in $(cluster_pids); do
    kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2> /dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo $((total / 1024))
}
