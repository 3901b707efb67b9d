# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Shared settings of the local Vitess test cluster. Source it: `source tests/vitess/env.sh`.
# Everything is overridable from the environment; defaults keep all state out of the repo.
#
#   VITESS_CDC_CACHE  where binaries and the MySQL root are installed
#                     (default ~/.cache/vitess-cdc; /var/cache/vitess-cdc as root)
#   VITESS_CDC_RUN    where a running cluster keeps its data, logs and pid file
#   VT_BASE_PORT      vtcombo HTTP port; gRPC = base+1, mysqld = base+2, VTGate MySQL = base+3

VITESS_VERSION=${VITESS_VERSION:-v0.24.4}
# Vitess's mysqlctl refuses to run as root. As root, the cluster runs as the system user
# VT_RUN_AS (created by install.sh), so installs go where that user can read them.
if [ "$(id -u)" = 0 ]; then
  VT_RUN_AS=${VT_RUN_AS:-vitess-cdc}
  VITESS_CDC_CACHE=${VITESS_CDC_CACHE:-/var/cache/vitess-cdc}
else
  VT_RUN_AS=
  VITESS_CDC_CACHE=${VITESS_CDC_CACHE:-$HOME/.cache/vitess-cdc}
fi
VITESS_CDC_RUN=${VITESS_CDC_RUN:-$VITESS_CDC_CACHE/run}
VT_BASE_PORT=${VT_BASE_PORT:-15990}

export VTROOT="$VITESS_CDC_CACHE/vitess-$VITESS_VERSION"
export VT_MYSQL_ROOT="$VITESS_CDC_CACHE/mysql"
MYSQL_SID_ROOT="$VITESS_CDC_CACHE/mysql-sid"
# VTDATAROOT must stay short: MySQL's unix socket path is limited to 107 characters.
export VTDATAROOT="$VITESS_CDC_RUN"

export VTGATE_HTTP_PORT=$VT_BASE_PORT
export VTGATE_GRPC_PORT=$((VT_BASE_PORT + 1))
export VTGATE_GRPC_ADDR="127.0.0.1:$VTGATE_GRPC_PORT"
export VT_MYSQLD_PORT=$((VT_BASE_PORT + 2))
export VTGATE_MYSQL_PORT=$((VT_BASE_PORT + 3))
export VTGATE_MYSQL_HOST=127.0.0.1

VT_PID_FILE="$VITESS_CDC_RUN/vttestserver.pid"
VT_LOG="$VITESS_CDC_RUN/vttestserver.log"
VT_DATA_DIR="$VITESS_CDC_RUN/data"

# A mysql client pointed at VTGate's MySQL port (any user, no password on the test cluster).
# MariaDB's client, not MySQL 9.7's: VTGate offers mysql_native_password, which 9.x clients
# no longer have. install.sh installs mariadb-client-core from Debian.
vt_mysql() {
  mariadb --no-defaults -h "$VTGATE_MYSQL_HOST" -P "$VTGATE_MYSQL_PORT" -u vitess-cdc "$@"
}
