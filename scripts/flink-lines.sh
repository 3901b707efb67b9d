#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# The Flink lines besides the default (2.2, which scripts/test.sh tests in full): for each, build the
# connector and the SQL jar against that Flink and run the connector's unit tests and its main
# source and SQL ITCases against the running local Vitess; with --full, every ITCase of the
# connector and the SQL jar (SourceTestSuiteBase, the multi-process cluster's scenarios, the
# standalone cluster's), as on 2.2.
#
#   scripts/flink-lines.sh [--full] [line ...]     (default lines: 1.20 2.3)
#
# The main ITCases need the local Vitess up (scripts/test.sh starts it); --full starts the local
# and the multi-process Vitess unless they run (and stops what it started). Starts the standalone
# MySQL of the JDBC sink recipe (tests/mysql) unless it runs, and stops it again if it started it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"
full=false
if [ "${1:-}" = --full ]; then
  full=true
  shift
fi
trap 'stop_mysql_sink_if_started_here; stop_multi_cluster_if_started_here; stop_cluster_if_started_here' EXIT
ensure_mysql_sink
if $full; then
  ensure_cluster
  ensure_multi_cluster
fi
lines=("$@")
[ ${#lines[@]} -gt 0 ] || lines=(1.20 2.3)
main_its='VitessSourceITCase,VitessTableITCase,VitessQueryShapesITCase,VitessFailureClassesITCase,VitessJdbcSinkITCase,VitessMaterializedTableITCase'
for line in "${lines[@]}"; do
  if $full; then
    echo "--> Flink $line: unit tests and every ITCase of the connector and the SQL jar"
    its=()
  else
    echo "--> Flink $line: unit tests, ${main_its//,/, }, the SQL jar"
    its=("-Dit.test=$main_its" -Dfailsafe.failIfNoSpecifiedTests=false)
  fi
  # `install` is not needed: the reactor hands the connector to the SQL jar's shading.
  "${MVN[@]}" verify -Pflink-"$line" -Dcargo.profile=dev \
    -pl java/vitess-cdc-connector,java/vitess-cdc-sql-connector "${its[@]}"
  jar=$(ls java/vitess-cdc-sql-connector/target/vitess-cdc-sql-connector-*-"$line"-SNAPSHOT.jar)
  echo "    built $jar"
done
