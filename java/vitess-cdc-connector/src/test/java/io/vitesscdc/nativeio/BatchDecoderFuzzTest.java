/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coverage-guided fuzzing of the Java batch decoder (Jazzer): whatever bytes arrive, decoding them
 * and reading every value either succeeds or throws {@link FatalException} naming the corruption —
 * never another exception, an endless loop or an allocation the input's size does not justify.
 *
 * <p>The input is a sequence of batches, each cut at the body length its header claims (the
 * decoder keeps table descriptors across batches, as in a stream). In a normal test run (the test
 * command) Jazzer replays the committed corpus in {@code BatchDecoderFuzzTestInputs/}: real batches of
 * the native encoder (synthetic streams of every type, written by {@link BatchFuzzSeeds}) and the
 * inputs earlier campaigns found. {@code scripts/fuzz.sh java-campaign N} runs Jazzer's driver on {@link #fuzzerTestOneInput} for N
 * executions.
 */
class BatchDecoderFuzzTest {

    // In fuzzing mode (JAZZER_FUZZ=1, or the campaign) the run length is the campaign's -runs=N; the
    // duration here is only an upper bound. A normal test run replays the corpus and ends.
    @FuzzTest(maxDuration = "24h")
    void anyBytesDecodeOrFailAsCorrupt(byte[] input) {
        fuzzerTestOneInput(input);
    }

    /** The same, as the entry point of Jazzer's own driver (campaigns of N executions). */
    public static void fuzzerTestOneInput(byte[] input) {
        BatchDecoder decoder = new BatchDecoder();
        ByteBuffer all = ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN);
        int pos = 0;
        while (input.length - pos >= BatchDecoder.HEADER_LENGTH) {
            long body = all.getInt(pos + 12) & 0xffffffffL;
            int length = (int) Math.min(BatchDecoder.HEADER_LENGTH + body, input.length - pos);
            // The reader decodes direct buffers that the native side filled.
            ByteBuffer batch = ByteBuffer.allocateDirect(length);
            batch.put(0, input, pos, length);
            pos += length;
            try {
                for (BatchEntry entry : decoder.decode(batch, length)) {
                    readEverything(entry);
                }
            } catch (FatalException corrupt) {
                assertThat(corrupt.getMessage()).isNotBlank();
                return; // a corrupt batch ends the stream, as it fails the reader
            }
        }
    }

    private static void readEverything(BatchEntry entry) {
        BatchRoundTripTest.render(entry);
        if (entry instanceof VitessRecord r) {
            for (int i = 0; i < r.arity(); i++) {
                r.getObject(i);
                if (!r.isNull(i) && !r.isAbsent(i) && r.valueType(i) == ValueType.DECIMAL) {
                    r.getDecimal(i);
                }
            }
        }
    }
}
