#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Coverage-guided fuzzing of the core (rust/fuzz, cargo-fuzz + libFuzzer, nightly toolchain).
#   scripts/fuzz.sh                      smoke: every target for FUZZ_SECONDS (default 5) from its
#                                        committed corpus, built without AddressSanitizer
#                                        (scripts/test.sh runs this)
#   scripts/fuzz.sh campaign TARGET [N]  a long run of one target: N executions (default 10000000),
#                                        on all cores (FUZZ_JOBS, default nproc), new inputs kept in
#                                        $VITESS_CDC_CACHE/fuzz-corpus/TARGET; FUZZ_SANITIZER=none
#                                        reuses the smoke's build (no AddressSanitizer)
#   scripts/fuzz.sh java-campaign [N]    the Java batch decoder (Jazzer, BatchDecoderFuzzTest) for N
#                                        executions (default 10000000); new inputs kept in
#                                        $VITESS_CDC_CACHE/fuzz-corpus/java-batch-decoder. Its committed
#                                        corpus is replayed by every `mvn test`.
# Installs what is missing, once: the nightly toolchain (rustup) and cargo-fuzz (cached under
# $VITESS_CDC_CACHE/cargo-fuzz). A crash fails the script and leaves the input under
# rust/fuzz/artifacts/TARGET/ (replay: cargo +nightly fuzz run TARGET <file>).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
FUZZ_DIR=$REPO/rust/fuzz
cd "$FUZZ_DIR"

TARGETS=(vstream_machine row_decoder batch_roundtrip position_bytes)
# Sanitizer builds differ from the stable ones: their own target dir keeps both caches warm.
FUZZ_TARGET_DIR=${FUZZ_TARGET_DIR:-$VITESS_CDC_CACHE/cargo-fuzz-target}
FUZZ_ROOT=$VITESS_CDC_CACHE/cargo-fuzz
export PATH="$FUZZ_ROOT/bin:$PATH"

if ! rustup run nightly rustc --version > /dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz > /dev/null; then
  cargo +stable install cargo-fuzz --locked --root "$FUZZ_ROOT"
fi

fuzz() {
  cargo +nightly fuzz run --fuzz-dir "$FUZZ_DIR" --target-dir "$FUZZ_TARGET_DIR" "$@"
}

case "${1:-smoke}" in
  smoke)
    seconds=${FUZZ_SECONDS:-5}
    # The smoke builds without AddressSanitizer (coverage guidance and every assertion stay): a
    # sanitizer build of the core from nothing takes tens of minutes on two cores, the test
    # command's whole budget. Campaigns keep the sanitizer.
    SMOKE=(--sanitizer none)
    cargo +nightly fuzz build "${SMOKE[@]}" --fuzz-dir "$FUZZ_DIR" --target-dir "$FUZZ_TARGET_DIR"
    for t in "${TARGETS[@]}"; do
      # New inputs go to the first directory: a scratch one, so the committed corpus stays as is.
      scratch=$(mktemp -d)
      echo "--- $t: ${seconds}s from rust/fuzz/corpus/$t"
      status=0
      fuzz "${SMOKE[@]}" "$t" "$scratch" "$FUZZ_DIR/corpus/$t" -- -max_total_time="$seconds" -print_final_stats=1 \
        > "$scratch.log" 2>&1 || status=$?
      grep -E '^(stat::number_of_executed_units|stat::new_units_added|Done )' "$scratch.log" || true
      if [ "$status" -ne 0 ]; then
        tail -n 40 "$scratch.log" >&2
        echo "fuzz target $t failed (input in rust/fuzz/artifacts/$t/)" >&2
        exit 1
      fi
      rm -rf "$scratch" "$scratch.log"
    done
    ;;
  campaign)
    t=${2:?usage: scripts/fuzz.sh campaign TARGET [EXECUTIONS]}
    runs=${3:-10000000}
    jobs=${FUZZ_JOBS:-$(nproc)}
    kept=$VITESS_CDC_CACHE/fuzz-corpus/$t
    mkdir -p "$kept"
    # -runs counts per job: split the executions over the jobs.
    # FUZZ_SANITIZER=none: the smoke's build (no AddressSanitizer; every assertion stays), for a
    # machine where the sanitizer build from nothing is too slow.
    fuzz --sanitizer "${FUZZ_SANITIZER:-address}" "$t" "$kept" "$FUZZ_DIR/corpus/$t" --jobs "$jobs" -- \
      -runs=$(( (runs + jobs - 1) / jobs )) -print_final_stats=1
    ;;
  java-campaign)
    runs=${2:-10000000}
    cd "$REPO"
    module=java/vitess-cdc-connector
    kept=$VITESS_CDC_CACHE/fuzz-corpus/java-batch-decoder
    mkdir -p "$kept"
    # The decoder is pure Java: no native library needed (-Dnative.skip).
    "${MVN[@]}" test-compile -pl "$module" -Dnative.skip=true
    "${MVN[@]}" -pl "$module" dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile=target/fuzz-classpath.txt > /dev/null
    # Jazzer's own driver (not the JUnit one, whose run length is fixed by the annotation):
    # new inputs go to the first directory, the committed corpus is read from the second.
    java -cp "$module/target/test-classes:$module/target/classes:$(cat "$module/target/fuzz-classpath.txt")" \
      com.code_intelligence.jazzer.Jazzer --target_class=io.vitesscdc.nativeio.BatchDecoderFuzzTest \
      --instrumentation_includes='io.vitesscdc.**' \
      "$kept" "$module/src/test/resources/io/vitesscdc/nativeio/BatchDecoderFuzzTestInputs/anyBytesDecodeOrFailAsCorrupt" \
      -runs="$runs" -print_final_stats=1
    ;;
  *)
    echo "usage: scripts/fuzz.sh [smoke | campaign TARGET [EXECUTIONS] | java-campaign [EXECUTIONS]]" >&2
    exit 2
    ;;
esac
