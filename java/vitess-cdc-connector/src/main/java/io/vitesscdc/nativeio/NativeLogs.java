/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Forwards the native core's log events ({@code tracing} in Rust) to SLF4J.
 *
 * <p>No native thread calls into Java: the native side formats each event into a bounded queue
 * (dropping and counting events when it is full), and Java threads drain it here — after every
 * {@link NativeStream#poll}, and on open and close. Each event goes to the logger
 * {@code vitesscdc.native.<target>}, the Rust target with {@code ::} replaced by {@code .} (e.g.
 * {@code vitesscdc.native.vitess_cdc_core.stream}), at its own level, with the native thread's name
 * in front of the message.
 *
 * <p>Levels: at every {@link NativeStream#open} the most verbose level enabled for
 * {@value #LOGGER_PREFIX}, {@code vitesscdc.native.vitess_cdc_core} or
 * {@code vitesscdc.native.vitess_cdc_jni} is passed to the native side, which then formats
 * nothing above it. Finer loggers are respected when forwarding.
 *
 * <p>Without SLF4J on the class path nothing is forwarded and the native level stays OFF.
 *
 * <p>Checking for logs costs no native call: the queue's counters (pending, dropped) are read
 * through a direct buffer over native memory.
 */
public final class NativeLogs {

    /** Prefix of every native logger name. */
    public static final String LOGGER_PREFIX = "vitesscdc.native";

    static final int OFF = 0;
    static final int ERROR = 1;
    static final int WARN = 2;
    static final int INFO = 3;
    static final int DEBUG = 4;
    static final int TRACE = 5;

    private static final int HEADER_LENGTH = 16;
    private static final int DRAIN_BUFFER_BYTES = 64 * 1024;
    /** Bound on drain calls per {@link #drain}: a thread that polls must get back to polling. */
    private static final int MAX_DRAINS_PER_CALL = 16;

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final Logger ROOT = LoggerFactory.getLogger(LOGGER_PREFIX);
    private static final String[] LEVEL_LOGGERS = {
        LOGGER_PREFIX, LOGGER_PREFIX + ".vitess_cdc_core", LOGGER_PREFIX + ".vitess_cdc_jni"
    };
    private static final ConcurrentHashMap<String, Logger> LOGGERS = new ConcurrentHashMap<>();
    private static final ReentrantLock DRAIN_LOCK = new ReentrantLock();

    private static volatile ByteBuffer state;
    private static volatile int level = -1;
    private static ByteBuffer drainBuffer;

    private NativeLogs() {}

    /**
     * Passes the current SLF4J level to the native side (if it changed) and sets up the counters.
     * Called at every open, so a logging reconfiguration applies to the next stream opened.
     */
    static void configure() {
        if (state == null) {
            synchronized (NativeLogs.class) {
                if (state == null) {
                    state = NativeStream.nativeLogState().order(ByteOrder.nativeOrder());
                }
            }
        }
        int enabled = enabledLevel();
        if (enabled != level) {
            NativeStream.nativeSetLogLevel(enabled);
            level = enabled;
        }
    }

    /** The most verbose level enabled on any of the loggers that decide the native level. */
    static int enabledLevel() {
        int max = OFF;
        for (String name : LEVEL_LOGGERS) {
            max = Math.max(max, levelOf(LoggerFactory.getLogger(name)));
        }
        return max;
    }

    private static int levelOf(Logger logger) {
        if (logger.isTraceEnabled()) {
            return TRACE;
        }
        if (logger.isDebugEnabled()) {
            return DEBUG;
        }
        if (logger.isInfoEnabled()) {
            return INFO;
        }
        if (logger.isWarnEnabled()) {
            return WARN;
        }
        return logger.isErrorEnabled() ? ERROR : OFF;
    }

    /** Drains when the native queue holds records or dropped some; a few ns otherwise. */
    static void drainIfPending() {
        ByteBuffer s = state;
        if (s != null && ((long) LONGS.getVolatile(s, 0) != 0 || (long) LONGS.getVolatile(s, 8) != 0)) {
            drain();
        }
    }

    /**
     * Forwards every queued native log record to SLF4J. If another thread is draining already,
     * returns at once (that thread forwards them).
     */
    public static void drain() {
        if (state == null || !DRAIN_LOCK.tryLock()) {
            return;
        }
        try {
            if (drainBuffer == null) {
                drainBuffer = ByteBuffer.allocateDirect(DRAIN_BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            }
            for (int i = 0; i < MAX_DRAINS_PER_CALL; i++) {
                int n = NativeStream.nativeDrainLogs(drainBuffer);
                if (n <= 0) {
                    return;
                }
                forward(drainBuffer, n);
            }
        } finally {
            DRAIN_LOCK.unlock();
        }
    }

    /** Decodes one drain (format in rust/jni/src/logs.rs) and logs every record. */
    static void forward(ByteBuffer buf, int length) {
        if (length < HEADER_LENGTH) {
            return;
        }
        int count = buf.getInt(0);
        long dropped = buf.getLong(8);
        if (dropped > 0) {
            ROOT.warn(
                    "{} native log events were dropped: the native log queue was full (it is drained after every "
                            + "poll; raise the vitesscdc.native level to log less)",
                    dropped);
        }
        int at = HEADER_LENGTH;
        for (int i = 0; i < count && at < length; i++) {
            int lvl = buf.get(at) & 0xff;
            at += 1 + 8; // level, timestamp (the SLF4J event gets the drain time; logs lag by a poll at most)
            int targetLength = buf.getShort(at) & 0xffff;
            String target = utf8(buf, at + 2, targetLength);
            at += 2 + targetLength;
            int threadLength = buf.getShort(at) & 0xffff;
            String thread = utf8(buf, at + 2, threadLength);
            at += 2 + threadLength;
            int messageLength = buf.getInt(at);
            String message = utf8(buf, at + 4, messageLength);
            at += 4 + messageLength;
            log(logger(target), lvl, thread, message);
        }
    }

    static Logger logger(String target) {
        Logger logger = LOGGERS.get(target);
        if (logger == null) {
            if (LOGGERS.size() > 4096) {
                LOGGERS.clear();
            }
            logger = LoggerFactory.getLogger(LOGGER_PREFIX + "." + target.replace("::", "."));
            LOGGERS.put(target, logger);
        }
        return logger;
    }

    private static void log(Logger logger, int lvl, String thread, String message) {
        switch (lvl) {
            case ERROR:
                logger.error("[{}] {}", thread, message);
                break;
            case WARN:
                logger.warn("[{}] {}", thread, message);
                break;
            case INFO:
                logger.info("[{}] {}", thread, message);
                break;
            case DEBUG:
                logger.debug("[{}] {}", thread, message);
                break;
            default:
                logger.trace("[{}] {}", thread, message);
                break;
        }
    }

    private static String utf8(ByteBuffer buf, int at, int length) {
        byte[] bytes = new byte[length];
        buf.get(at, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
