// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package etcdbuild only pins the etcd server built by tests/vitess/cluster/install.sh.
package etcdbuild

import (
	_ "go.etcd.io/etcd/server/v3"
)
