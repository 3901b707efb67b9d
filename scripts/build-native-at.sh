#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Builds the connector's native library (libvitess_cdc_jni.so, release) as it was at a git
# revision and prints its path: the "before" of an A/B of the native code with
# scripts/bench-e2e.sh (BENCH_NATIVE_AB, docs/benchmarks.md).
#
#   scripts/build-native-at.sh <revision>        # e.g. HEAD~3, a tag, a commit
#   scripts/build-native-at.sh <revision> bench  # the core's benchmark program instead
#                                                # (vitess-cdc-bench: its offline A/B)
#   scripts/build-native-at.sh <revision> classes  # the connector's Java classes, as a jar
#                                                  # (an A/B of the Java side: BENCH_AB)
#
# The revision is checked out in a worktree under $VITESS_CDC_CACHE/native-at and built with a
# target directory of its own (the first build takes as long as a release build from nothing;
# later ones are incremental); the library is copied to $VITESS_CDC_CACHE/native-at/<commit>.so,
# and a second call for the same commit only prints that path. The Java classes that load it
# are the working tree's: both must speak the same batch format (the JVM says so if not).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rev=${1:?usage: scripts/build-native-at.sh <git revision> [jni|bench]}
what=${2:-jni}
VITESS_CDC_CACHE=${VITESS_CDC_CACHE:-/var/cache/vitess-cdc}
dir=$VITESS_CDC_CACHE/native-at
commit=$(git -C "$REPO" rev-parse --verify "$rev^{commit}")
case $what in
  jni) out=$dir/$commit.so built=libvitess_cdc_jni.so build=(-p vitess-cdc-jni) ;;
  bench) out=$dir/$commit-vitess-cdc-bench built=vitess-cdc-bench build=(-p vitess-cdc-cli --bin vitess-cdc-bench) ;;
  classes) out=$dir/$commit-classes.jar ;;
  *) echo "build-native-at: build jni, bench or classes, not '$what'" >&2; exit 2 ;;
esac
if [ ! -f "$out" ]; then
  mkdir -p "$dir"
  tree=$dir/worktree
  # A worktree pruned from the repository (or one of another clone) is no git tree any more.
  if [ -d "$tree" ] && ! git -C "$tree" rev-parse --git-dir > /dev/null 2>&1; then
    rm -rf "$tree"
  fi
  if [ -d "$tree" ]; then
    git -C "$tree" checkout -q --detach "$commit"
  else
    # A cache wiped since the last call leaves the worktree registered but gone.
    git -C "$REPO" worktree prune
    git -C "$REPO" worktree add -q --detach "$tree" "$commit"
  fi
  if [ "$what" = classes ]; then
    # Java only: the native library stays the one the benchmark's classpath packs.
    echo "build-native-at: compiling the connector's classes at ${commit:0:12}" >&2
    (cd "$tree" && mvn -B -q -ntp -Dnative.skip=true -Dspotless.check.skip=true compile \
      -pl java/vitess-cdc-connector >&2)
    jar cf "$out.tmp" -C "$tree/java/vitess-cdc-connector/target/classes" io
  else
    echo "build-native-at: building $built at ${commit:0:12}" >&2
    (cd "$tree" && CARGO_TARGET_DIR=$dir/target cargo build -q --release "${build[@]}" >&2)
    cp "$dir/target/release/$built" "$out.tmp"
  fi
  mv "$out.tmp" "$out"
fi
echo "$out"
