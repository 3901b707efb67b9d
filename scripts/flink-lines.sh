#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# The Flink lines besides the default (2.2, which scripts/test.sh tests in full): for each, build the
# connector and the SQL jar against that Flink, run the connector's unit tests and its main source
# and SQL ITCases against the running local Vitess. Usage: scripts/flink-lines.sh [line ...]
# (default: 1.20 2.3). Needs the local Vitess up (scripts/test.sh starts it); starts the standalone
# MySQL of the JDBC sink recipe (tests/mysql) unless it runs, and stops it again if it started it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"
trap 'stop_mysql_sink_if_started_here' EXIT
ensure_mysql_sink
lines=("$@")
[ ${#lines[@]} -gt 0 ] || lines=(1.20 2.3)
for line in "${lines[@]}"; do
  echo "--> Flink $line: unit tests, VitessSourceITCase, VitessTableITCase, VitessQueryShapesITCase, VitessFailureClassesITCase, VitessJdbcSinkITCase, VitessMaterializedTableITCase, the SQL jar"
  # `install` is not needed: the reactor hands the connector to the SQL jar's shading.
  "${MVN[@]}" verify -Pflink-"$line" -Dcargo.profile=dev \
    -pl java/vitess-cdc-connector,java/vitess-cdc-sql-connector \
    -Dit.test='VitessSourceITCase,VitessTableITCase,VitessQueryShapesITCase,VitessFailureClassesITCase,VitessJdbcSinkITCase,VitessMaterializedTableITCase' -Dfailsafe.failIfNoSpecifiedTests=false
  jar=$(ls java/vitess-cdc-sql-connector/target/vitess-cdc-sql-connector-*-"$line"-SNAPSHOT.jar)
  echo "    built $jar"
done
