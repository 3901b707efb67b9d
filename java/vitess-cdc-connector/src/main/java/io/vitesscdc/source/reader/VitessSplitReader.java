/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.NativeStream;
import io.vitesscdc.nativeio.NativeStreamReader;
import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.config.VitessSourceConfig;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;
import io.vitesscdc.source.metrics.VitessSourceReaderMetrics;
import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Reads every split of one source reader through ONE native stream: one JNI call per fetch
 * returns a batch holding records of any of the reader's shards.
 *
 * <p>When splits are added, the stream is re-opened (lazily, at the next fetch) with the current
 * fetch-side position of every shard, and records already handed out after those positions are
 * skipped, so the emitter sees each record once. Runs on the fetcher thread; only
 * {@link #wakeUp()} is called from another thread.
 */
@Internal
public final class VitessSplitReader<T> implements SplitReader<SplitElement<T>, VitessSplit> {

    private static final Logger LOG = LoggerFactory.getLogger(VitessSplitReader.class);

    private final VitessSourceConfig config;
    private final BatchConverter<T> converter;
    private final VitessSourceReaderMetrics metrics;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final BiFunction<String, List<Position>, NativeStream> streamOpener;
    /** Options JSON → copy estimates JSON ({@link NativeStream#copyEstimatesJson}). */
    private final Function<String, String> copyEstimates;

    /** The stream options of the deserializer's own row form (null: values only). */
    private final String rowForm;

    /** The tables the job selects (by name, or resolved from its patterns when it was created). */
    private final List<String> jobTables;

    private volatile NativeStreamReader stream;
    private boolean reopen;
    /**
     * Reads the copy estimates (table statistics, one query per shard) beside the stream instead
     * of before it: they only feed progress metrics, and the first record must not wait for
     * them. One daemon thread, started at the first use.
     */
    private ExecutorService estimatesReader;

    /**
     * @param jobTables the tables the job selects, as its marks record them (see {@code
     *     VitessSource.jobTables}); a position that has not seen one of them gets it captured
     */
    public VitessSplitReader(
            VitessSourceConfig config,
            List<String> jobTables,
            VitessDeserializationSchema<T> deserializer,
            VitessSourceReaderMetrics metrics,
            BiFunction<String, List<Position>, NativeStream> streamOpener) {
        this(config, jobTables, deserializer, metrics, streamOpener, NativeStream::copyEstimatesJson);
    }

    public VitessSplitReader(
            VitessSourceConfig config,
            List<String> jobTables,
            VitessDeserializationSchema<T> deserializer,
            VitessSourceReaderMetrics metrics,
            BiFunction<String, List<Position>, NativeStream> streamOpener,
            Function<String, String> copyEstimates) {
        this.config = config;
        this.metrics = metrics;
        this.streamOpener = streamOpener;
        this.copyEstimates = copyEstimates;
        this.jobTables = List.copyOf(jobTables);
        this.rowForm = deserializer.nativeOptionsJson();
        this.converter = new BatchConverter<>(
                deserializer, config.startupMode().isBounded(), BatchConverter.DEFAULT_MAX_GROUPED_RECORDS, metrics);
        converter.jobTables(this.jobTables);
        converter.badRecords(config.badRecordHandling());
    }

    @Override
    public RecordsWithSplitIds<SplitElement<T>> fetch() throws IOException {
        if (reopen) {
            reopen = false;
            openStream();
        }
        NativeStreamReader current = stream;
        if (current == null) {
            return converter.finishedOnly();
        }
        Batch batch = current.poll(config.pollTimeout().toMillis());
        metrics.polled(current);
        if (batch == null) {
            return converter.finishedOnly();
        }
        metrics.batchFetched(batch.sizeInBytes());
        VitessRecords<T> records;
        try {
            records = converter.convert(batch);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("converting a Vitess record failed: " + e.getMessage(), e);
        }
        if (converter.allFinished()) {
            LOG.info("Every split of this reader finished; closing the native stream");
            closeStream();
        }
        return records;
    }

    @Override
    public void handleSplitsChanges(SplitsChange<VitessSplit> splitsChanges) {
        if (!(splitsChanges instanceof SplitsAddition)) {
            throw new UnsupportedOperationException(
                    "Unsupported splits change: " + splitsChanges.getClass().getSimpleName());
        }
        for (VitessSplit split : splitsChanges.splits()) {
            LOG.info(
                    "Adding split {} from position {} (skip {} records)",
                    split.splitId(),
                    split.position(),
                    split.recordsSinceMark());
            converter.addSplit(split);
        }
        List<VitessSplit> added = List.copyOf(splitsChanges.splits());
        if (estimatesReader == null) {
            estimatesReader = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "vitess-cdc-copy-estimates");
                t.setDaemon(true);
                return t;
            });
        }
        estimatesReader.execute(() -> readCopyEstimates(added));
        reopen = true;
    }

    /**
     * Reads the copy estimates (tables, rows from table statistics) of the added splits that still
     * copy, once, for the snapshot progress metrics (whose gauges answer "unknown" until then). A
     * failure only leaves them unknown.
     */
    private void readCopyEstimates(List<VitessSplit> added) {
        Map<String, List<String>> copyingByKeyspace = new java.util.TreeMap<>();
        for (VitessSplit split : added) {
            if (!split.position().copyCompleted()) {
                copyingByKeyspace
                        .computeIfAbsent(split.keyspace(), k -> new ArrayList<>())
                        .add(split.shard());
            }
        }
        copyingByKeyspace.forEach(this::readCopyEstimates);
    }

    private void readCopyEstimates(String keyspace, List<String> copying) {
        try {
            String options = config.forKeyspace(keyspace).toNativeOptionsJson(copying, "initial");
            JsonNode root = JSON.readTree(copyEstimates.apply(options));
            List<String> tables = new ArrayList<>();
            root.path("tables").forEach(t -> tables.add(t.asText()));
            for (String shard : copying) {
                JsonNode rows = root.path("shards").path(shard);
                Map<String, Long> byTable = new HashMap<>();
                rows.fields()
                        .forEachRemaining(e -> byTable.put(
                                e.getKey(),
                                e.getValue().isNumber() ? e.getValue().asLong() : null));
                metrics.copyEstimates(VitessSplit.splitId(keyspace, shard), tables, byTable);
            }
            LOG.info("Copy estimates of shards {} of keyspace {}: {}", copying, keyspace, root);
        } catch (Exception | LinkageError e) {
            LOG.warn(
                    "Could not read the copy estimates of shards {} of keyspace {} (snapshot progress metrics stay "
                            + "unknown): {}",
                    copying,
                    keyspace,
                    e.toString());
        }
    }

    private void openStream() {
        closeStream();
        converter.rewind();
        List<ShardCursor<T>> open = converter.openCursors();
        if (open.isEmpty()) {
            return;
        }
        Map<String, List<String>> shards = new java.util.LinkedHashMap<>();
        List<Position> positions = new ArrayList<>();
        Map<String, List<String>> added = new java.util.TreeMap<>();
        for (ShardCursor<T> c : open) {
            shards.computeIfAbsent(c.keyspace, k -> new ArrayList<>()).add(c.shard);
            positions.add(c.position);
            for (String table : addedTables(c)) {
                // with several keyspaces, a capture names its keyspace
                String name = config.severalKeyspaces() ? c.keyspace + "." + table : table;
                added.computeIfAbsent(name, t -> new ArrayList<>()).add(c.shard);
            }
        }
        if (!added.isEmpty()) {
            LOG.info(
                    "Tables the job selects that the positions have not seen, captured in chunks (table: shards): {}",
                    added);
        }
        String options = withRowForm(config.toNativeOptionsJson(shards, "positions", added));
        LOG.info("Opening a native Vitess stream for shards {} (by keyspace)", shards);
        NativeStream nativeStream = streamOpener.apply(options, positions);
        stream = new NativeStreamReader(nativeStream, config.initialBufferBytes(), config.maxBufferBytes());
        metrics.streamOpened();
    }

    /** The stream options with those of the deserializer's own row form, when it has one. */
    private String withRowForm(String options) {
        if (rowForm == null) {
            return options;
        }
        try {
            ObjectNode o = (ObjectNode) JSON.readTree(options);
            o.setAll((ObjectNode) JSON.readTree(rowForm));
            return JSON.writeValueAsString(o);
        } catch (IOException | ClassCastException e) {
            throw new IllegalStateException("cannot add the deserializer's row form to the stream options", e);
        }
    }

    /**
     * The tables the job selects that the cursor's position has not seen (a job restored with more
     * tables, or a pattern that matches a table created since): they are captured in chunks on the
     * cursor's shard. None when the position's tables are unknown.
     */
    private List<String> addedTables(ShardCursor<T> c) {
        List<String> added = new ArrayList<>();
        if (!c.tables.isEmpty()) {
            for (String table : VitessSourceConfig.tablesOf(c.keyspace, jobTables)) {
                if (!c.tables.contains(table)) {
                    added.add(table);
                }
            }
        }
        return added;
    }

    private void closeStream() {
        NativeStreamReader s = stream;
        stream = null;
        if (s != null) {
            metrics.closing(s);
            s.close();
        }
    }

    @Override
    public void wakeUp() {
        NativeStreamReader s = stream;
        if (s != null) {
            try {
                s.wake();
            } catch (IllegalStateException closedMeanwhile) {
                // the fetcher closed the stream between the read and the wake: nothing to wake
            }
        }
    }

    @Override
    public void close() {
        if (estimatesReader != null) {
            estimatesReader.shutdownNow();
        }
        closeStream();
    }
}
