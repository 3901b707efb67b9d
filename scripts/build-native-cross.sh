#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Cross-compiles the native library for one more platform; called by the connector's Maven build
# (profile cross-linux-aarch64) so that one jar carries linux-x86_64 and linux-aarch64.
# The bundled library has no cargo features (no test natives in a product); the test library
# (FEATURES `diagnostics`, its own target dir) is built for the tests of scripts/aarch64-jvm-tests.sh.
# Usage: build-native-cross.sh RUST_TARGET CARGO_PROFILE CARGO_TARGET_DIR [FEATURES]
set -euo pipefail
target=$1 profile=$2 target_dir=$3 features=${4:-}
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v aarch64-linux-gnu-gcc > /dev/null || ! rustup target list --installed 2> /dev/null | grep -qx "$target"; then
  cat >&2 << MSG
The connector jar bundles the native library for linux-aarch64 as well, and this machine cannot
build it: the cross toolchain (aarch64-linux-gnu-gcc) or Rust's $target standard library is missing.
Fix: run scripts/install-cross.sh (Debian's gcc-aarch64-linux-gnu and qemu-user, rustup target add),
or build a jar for this machine's platform only with -Dnative.cross.skip=true.
MSG
  exit 1
fi
exec cargo build --manifest-path Cargo.toml --profile "$profile" -p vitess-cdc-jni \
  --features="$features" --target "$target" --target-dir "$target_dir"
