#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Runs the native bridge's server-free tests in a real linux-aarch64 JVM, emulated by qemu-user on
# this x86_64 machine, against the connector's built classes: the JVM reports os.arch=aarch64, so
# NativeLibrary must pick native/linux-aarch64/ from the bundle, and every value of every type must
# round-trip through the aarch64 library (BatchRoundTripTest; the test library, with the synthetic
# streams, which the bundled one has not). Needs `mvn verify` (or
# test-compile) of java/vitess-cdc-connector first; scripts/test.sh runs it after that.
# The arm64 JRE is Debian bookworm's openjdk-17-jre-headless, unpacked into a private folder
# (tests/debian/extract-packages.sh; cached in $VITESS_CDC_CACHE/arm64-jre, ~260 MB).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO"

JRE_ROOT=$VITESS_CDC_CACHE/arm64-jre
JAVA=$JRE_ROOT/usr/lib/jvm/java-17-openjdk-arm64/bin/java
if [ ! -x "$JAVA" ]; then
  SUITE=bookworm ARCH=arm64 bash tests/debian/extract-packages.sh "$JRE_ROOT" openjdk-17-jre-headless
fi
command -v qemu-aarch64 > /dev/null || { echo "qemu-aarch64 missing: run scripts/install-cross.sh" >&2; exit 1; }

module=java/vitess-cdc-connector
[ -d "$module/target/test-classes" ] || { echo "build the connector's tests first (mvn verify)" >&2; exit 1; }
junit_version=$(sed -n 's:.*<junit.version>\(.*\)</junit.version>.*:\1:p' pom.xml)
# The JUnit console launcher runs the tests; the platform's version goes with Jupiter's (5.x -> 1.x).
launcher="org.junit.platform:junit-platform-console-standalone:1.${junit_version#5.}"
"${MVN[@]}" dependency:copy -Dartifact="$launcher" -DoutputDirectory="$module/target/aarch64-jvm" \
  -Dmdep.stripVersion=true
"${MVN[@]}" -pl "$module" dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/aarch64-jvm/classpath.txt > /dev/null

echo "aarch64 JVM: $(qemu-aarch64 -L "$JRE_ROOT" "$JAVA" -version 2>&1 | sed -n 2p)"
# -L: the arm64 root's loader and libc; the JVM's own libraries are found relative to it.
qemu-aarch64 -L "$JRE_ROOT" "$JAVA" --enable-native-access=ALL-UNNAMED \
  -Dvitesscdc.bundled.platforms=linux-x86_64,linux-aarch64 -Dvitesscdc.roundtrip.seeds=4 \
  -Dvitesscdc.native.library="$module/target/test-native/linux-aarch64/libvitess_cdc_jni.so" \
  -jar "$module/target/aarch64-jvm/junit-platform-console-standalone.jar" execute \
  --disable-banner --details=summary --fail-if-no-tests \
  --class-path "$module/target/test-classes:$module/target/classes:$(cat "$module/target/aarch64-jvm/classpath.txt")" \
  --select-class io.vitesscdc.nativeio.BundledLibrariesTest \
  --select-class io.vitesscdc.nativeio.BatchRoundTripTest
