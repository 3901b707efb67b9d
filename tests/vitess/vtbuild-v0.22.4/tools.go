// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package vtbuild only pins the Vitess commands tests/vitess/install.sh builds for an older
// release line (VITESS_VERSION, scripts/vitess-lines.sh).
package vtbuild

import (
	_ "vitess.io/vitess/go/cmd/mysqlctl"
	_ "vitess.io/vitess/go/cmd/vtcombo"
	_ "vitess.io/vitess/go/cmd/vttestserver"
)
