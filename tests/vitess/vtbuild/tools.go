// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package vtbuild only pins the Vitess commands built by tests/vitess/install.sh and
// tests/vitess/cluster/install.sh.
package vtbuild

import (
	_ "vitess.io/vitess/go/cmd/mysqlctl"
	_ "vitess.io/vitess/go/cmd/vtcombo"
	_ "vitess.io/vitess/go/cmd/vtctld"
	_ "vitess.io/vitess/go/cmd/vtctldclient"
	_ "vitess.io/vitess/go/cmd/vtgate"
	_ "vitess.io/vitess/go/cmd/vttablet"
	_ "vitess.io/vitess/go/cmd/vttestserver"
)
