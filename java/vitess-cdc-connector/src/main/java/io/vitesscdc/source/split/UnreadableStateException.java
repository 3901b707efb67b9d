/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.split;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

import java.io.IOException;

/**
 * Split or enumerator state of a checkpoint or savepoint that this connector cannot restore:
 * truncated, corrupt, of another source, or written by a newer connector. Nothing of it is used
 * (no half-read split or position reaches a reader).
 *
 * <p>Marked non-recoverable: every restart would restore the same bytes and fail the same way, so
 * Flink fails the job at once instead of restarting it in a loop.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class UnreadableStateException extends IOException {

    private static final long serialVersionUID = 1L;

    /** What to do about state this connector cannot read. */
    static final String FIX = "restore another checkpoint or savepoint of this job, or start the job without "
            + "restoring state (it then starts as its scan.startup.mode says, an initial snapshot by default)";

    public UnreadableStateException(String message) {
        super(message);
    }

    public UnreadableStateException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The state of {@code what} (e.g. "Vitess split") could not be read because of {@code cause}. */
    public static UnreadableStateException corrupt(String what, Throwable cause) {
        String detail = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        return new UnreadableStateException(
                "cannot restore " + what + " state (" + detail + "): the bytes are truncated, corrupt or not "
                        + "written by the vitess-cdc source; " + FIX,
                cause);
    }

    /** State written in a format {@code version} that this connector does not know. */
    public static UnreadableStateException unknownVersion(String what, int version, int currentVersion) {
        return new UnreadableStateException("cannot restore " + what + " state of format version " + version
                + ": this connector reads versions 1.." + currentVersion + ", so the state was written by a newer "
                + "vitess-cdc connector (or another source); run that connector version or newer, or " + FIX);
    }

    /** One version's reader of state bytes. */
    @FunctionalInterface
    public interface VersionReader<T> {
        T read(int version, byte[] serialized) throws IOException;
    }

    /**
     * Reads {@code what}'s state of {@code version} with {@code reader}, or refuses it whole: a
     * version outside 1..{@code currentVersion}, and any failure while reading (truncated, foreign
     * or random bytes), become this exception, so nothing half-read is used and the job is not
     * restarted on the same bytes.
     */
    public static <T> T read(String what, int version, int currentVersion, byte[] serialized, VersionReader<T> reader)
            throws UnreadableStateException {
        if (version < 1 || version > currentVersion) {
            throw unknownVersion(what, version, currentVersion);
        }
        try {
            return reader.read(version, serialized);
        } catch (UnreadableStateException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw corrupt(what, e);
        }
    }
}
