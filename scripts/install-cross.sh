#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Installs what building the linux-aarch64 native library on a linux-x86_64 machine needs, from
# Debian's archive and rustup only: the aarch64 cross compiler and libc (the linker of
# .cargo/config.toml), qemu-user (runs the Rust tests of the aarch64 build), and Rust's
# aarch64-unknown-linux-gnu standard library. Idempotent: a second run checks and returns.
set -euo pipefail

missing=()
command -v aarch64-linux-gnu-gcc > /dev/null || missing+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
command -v qemu-aarch64 > /dev/null || missing+=(qemu-user)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-cross: need the Debian packages ${missing[*]}: run as root, or 'sudo apt-get install ${missing[*]}'" >&2
    exit 1
  fi
  echo "install-cross: apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" > /dev/null \
    || { apt-get update -q > /dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" > /dev/null; }
fi
if ! rustup target list --installed | grep -qx aarch64-unknown-linux-gnu; then
  echo "install-cross: rustup target add aarch64-unknown-linux-gnu"
  rustup target add aarch64-unknown-linux-gnu
fi
