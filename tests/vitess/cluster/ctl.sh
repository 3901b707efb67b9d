#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# vtctldclient against the multi-process cluster's vtctld, e.g.
#   bash tests/vitess/cluster/ctl.sh GetTablets
#   bash tests/vitess/cluster/ctl.sh PlannedReparentShard customer/-80
set -euo pipefail
# shellcheck source=env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
exec "$VTROOT/bin/vtctldclient" --server "$VT_CLUSTER_VTCTLD_ADDR" "$@"
