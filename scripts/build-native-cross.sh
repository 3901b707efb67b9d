#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Cross-compiles the native library for one more platform; called by the connector's Maven build
# (profile cross-linux-aarch64) so that one jar carries linux-x86_64 and linux-aarch64.
# Usage: build-native-cross.sh RUST_TARGET CARGO_PROFILE CARGO_FEATURES CARGO_TARGET_DIR
set -euo pipefail
target=$1 profile=$2 features=$3 target_dir=$4
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
