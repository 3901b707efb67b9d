/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the seed corpus of {@link BatchDecoderFuzzTest}: the batches of synthetic native streams
 * (every value type and marker, rust/jni/src/diagnostics/synth.rs), each seed file the raw bytes of
 * one stream's consecutive batches. Run from the connector module after a build:
 * {@code java -cp target/test-classes:target/classes io.vitesscdc.nativeio.BatchFuzzSeeds DIR}.
 */
final class BatchFuzzSeeds {

    private static final int MAX_SEED_BYTES = 16 << 10;

    private BatchFuzzSeeds() {}

    public static void main(String[] args) throws Exception {
        Path dir = Files.createDirectories(Path.of(args[0]));
        for (long seed = 0; seed < 24; seed++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
            try (NativeStream stream = NativeDiagnostics.openSynthetic(seed, 10)) {
                int length;
                while ((length = stream.poll(buffer, 0)) != NativeStream.END_OF_STREAM) {
                    if (length < NativeStream.END_OF_STREAM) {
                        throw new IllegalStateException("an event needs " + -length + " bytes");
                    }
                    if (length > 0) {
                        byte[] bytes = new byte[length];
                        buffer.get(0, bytes);
                        out.write(bytes);
                    }
                }
            }
            // Small inputs keep the fuzzer fast (libFuzzer's input limit is the largest seed): the
            // seeds whose large strings and bytes make them bigger are left out.
            if (out.size() <= MAX_SEED_BYTES) {
                Files.write(dir.resolve("synthetic-" + seed), out.toByteArray());
            }
        }
    }
}
