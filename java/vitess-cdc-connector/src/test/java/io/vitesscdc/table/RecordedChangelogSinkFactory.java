/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.RecordedChangelog;
import io.vitesscdc.source.testutils.RenderedPositions;
import io.vitesscdc.source.testutils.StrictTable;
import io.vitesscdc.source.testutils.TestSink;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.InitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The test SQL sink of a raw changelog ({@code 'connector' = 'recorded-changelog'}): it records
 * the +I, -U, +U, -D it gets into {@link RecordedChangelog} {@code 'recording-id'}, whose {@link
 * io.vitesscdc.source.testutils.StrictChangelog} judges it. Exactly once: records are committed per
 * completed checkpoint (Sink V2 committer), so after a failure or a restore the recording holds
 * each record of the job's consistent history once, in the order the source emitted it per
 * subtask (per shard: one split is read by one subtask). The table declares no primary key, so the
 * planner passes the source's changelog through unchanged (no upsert materializer).
 *
 * <p>Columns: the table's physical columns and, by name, {@code shard STRING} ({@code shard}
 * metadata, required), {@code pos STRING} ({@code position}) and {@code snap BOOLEAN}
 * ({@code is_snapshot}), both optional (without them no record counts as copied), and {@code epoch
 * BIGINT}, {@code rank BIGINT} (the order metadata, optional, kept beside the row). The key is
 * {@code 'key-columns'} ({@code ;}- or {@code ,}-separated); the row is every physical column.
 * Values are recorded as {@link StrictTable#normalize} text. A test waits for what was sent so far
 * with {@link RecordedChangelog#awaitCommitted}.
 *
 * <p>{@code 'rows-per-second'} throttles each subtask: chained to the source, it slows the copy
 * down as seen by Flink, so checkpoints and savepoints fall inside it. {@code 'job-label'} names
 * the job run in the recording ({@link RecordedChangelog#snapshotRecordsBy}).
 */
public final class RecordedChangelogSinkFactory implements DynamicTableSinkFactory {

    static final ConfigOption<String> RECORDING_ID =
            ConfigOptions.key("recording-id").stringType().noDefaultValue();
    static final ConfigOption<String> KEY_COLUMNS =
            ConfigOptions.key("key-columns").stringType().noDefaultValue();
    static final ConfigOption<Integer> ROWS_PER_SECOND =
            ConfigOptions.key("rows-per-second").intType().defaultValue(0);
    static final ConfigOption<String> JOB_LABEL =
            ConfigOptions.key("job-label").stringType().defaultValue("job");

    private static final String SHARD = "shard";
    private static final String POSITION = "pos";
    private static final String SNAPSHOT = "snap";
    private static final String EPOCH = "epoch";
    private static final String RANK = "rank";
    private static final List<String> NOT_IN_THE_ROW = List.of(SHARD, POSITION, SNAPSHOT, EPOCH, RANK);

    @Override
    public String factoryIdentifier() {
        return "recorded-changelog";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(RECORDING_ID, KEY_COLUMNS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(ROWS_PER_SECOND, JOB_LABEL);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        DataType rowType = context.getPhysicalRowDataType();
        List<String> names = DataType.getFieldNames(rowType);
        if (!names.contains(SHARD)) {
            throw new IllegalArgumentException("no column '" + SHARD + "' (the shard metadata) in " + names);
        }
        List<String> key = new ArrayList<>();
        for (String column : helper.getOptions().get(KEY_COLUMNS).split("[;,]")) {
            key.add(column.trim());
        }
        if (!names.containsAll(key)) {
            throw new IllegalArgumentException("key columns " + key + " are not all in " + names);
        }
        return new RecordingTableSink(
                new Settings(
                        helper.getOptions().get(RECORDING_ID),
                        names,
                        key,
                        helper.getOptions().get(ROWS_PER_SECOND),
                        helper.getOptions().get(JOB_LABEL)),
                rowType);
    }

    /** Everything a writer needs, serializable. */
    private static final class Settings implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        final String recordingId;
        final List<String> names;
        /** Indexes of the physical columns (all but the metadata columns), in table order. */
        final List<Integer> physical = new ArrayList<>();

        final int shard;
        final int position;
        final int snapshot;
        final int epoch;
        final int rank;
        final List<String> key;
        final int rowsPerSecond;
        final String jobLabel;

        Settings(String recordingId, List<String> names, List<String> key, int rowsPerSecond, String jobLabel) {
            this.recordingId = recordingId;
            this.names = new ArrayList<>(names);
            for (int i = 0; i < names.size(); i++) {
                if (!NOT_IN_THE_ROW.contains(names.get(i))) {
                    physical.add(i);
                }
            }
            this.shard = names.indexOf(SHARD);
            this.position = names.indexOf(POSITION);
            this.snapshot = names.indexOf(SNAPSHOT);
            this.epoch = names.indexOf(EPOCH);
            this.rank = names.indexOf(RANK);
            this.key = new ArrayList<>(key);
            this.rowsPerSecond = rowsPerSecond;
            this.jobLabel = jobLabel;
        }
    }

    private static final class RecordingTableSink implements DynamicTableSink {
        private final Settings settings;
        private final DataType rowType;

        RecordingTableSink(Settings settings, DataType rowType) {
            this.settings = settings;
            this.rowType = rowType;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return ChangelogMode.all();
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            // No parallelism of its own: it takes the source's, so it is chained to it.
            return SinkV2Provider.of(new RecordingSink(settings, context.createDataStructureConverter(rowType)));
        }

        @Override
        public DynamicTableSink copy() {
            return new RecordingTableSink(settings, rowType);
        }

        @Override
        public String asSummaryString() {
            return "recorded-changelog";
        }
    }

    /**
     * One checkpoint's records of one writer (maybe none); {@code id} is unique (the writer's UUID
     * and a sequence), {@code preparedAtNanos} is when the checkpoint reached the writer.
     */
    static final class Batch {
        final String id;
        final String writerId;
        final String writtenBy;
        final long preparedAtNanos;
        final List<RecordedChangelog.Entry> entries;

        Batch(
                String id,
                String writerId,
                String writtenBy,
                long preparedAtNanos,
                List<RecordedChangelog.Entry> entries) {
            this.id = id;
            this.writerId = writerId;
            this.writtenBy = writtenBy;
            this.preparedAtNanos = preparedAtNanos;
            this.entries = entries;
        }
    }

    private static final class RecordingSink extends TestSink<RowData> implements SupportsCommitter<Batch> {
        private static final long serialVersionUID = 1L;
        private final Settings settings;
        private final DynamicTableSink.DataStructureConverter converter;

        RecordingSink(Settings settings, DynamicTableSink.DataStructureConverter converter) {
            this.settings = settings;
            this.converter = converter;
        }

        @Override
        protected SinkWriter<RowData> newWriter(InitContext context) {
            converter.open(
                    RuntimeConverter.Context.create(Thread.currentThread().getContextClassLoader()));
            return new RecordingWriter(
                    settings,
                    converter,
                    settings.jobLabel + "/attempt " + context.getTaskInfo().getAttemptNumber());
        }

        @Override
        public Committer<Batch> createCommitter(CommitterInitContext context) {
            RecordedChangelog recording = RecordedChangelog.get(settings.recordingId);
            return new Committer<>() {
                @Override
                public void commit(Collection<CommitRequest<Batch>> requests) {
                    for (CommitRequest<Batch> r : requests) {
                        Batch b = r.getCommittable();
                        recording.commit(b.id, b.writerId, b.writtenBy, b.preparedAtNanos, b.entries);
                    }
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public SimpleVersionedSerializer<Batch> getCommittableSerializer() {
            return new BatchSerializer();
        }
    }

    private static final class RecordingWriter implements CommittingSinkWriter<RowData, Batch> {
        private final Settings settings;
        private final DynamicTableSink.DataStructureConverter converter;
        private final String writtenBy;
        private final RecordedChangelog recording;
        private final String writerId = UUID.randomUUID().toString();
        private final long periodNanos;
        private List<RecordedChangelog.Entry> pending = new ArrayList<>();
        private long batches;
        private long nextRecordNanos = System.nanoTime();

        RecordingWriter(Settings settings, DynamicTableSink.DataStructureConverter converter, String writtenBy) {
            this.settings = settings;
            this.converter = converter;
            this.writtenBy = writtenBy;
            this.recording = RecordedChangelog.get(settings.recordingId);
            this.periodNanos = settings.rowsPerSecond > 0 ? TimeUnit.SECONDS.toNanos(1) / settings.rowsPerSecond : 0;
            recording.opened(writerId);
        }

        @Override
        public void write(RowData element, Context context) throws InterruptedException {
            if (recording.takeFailure()) {
                throw new IllegalStateException("injected failure (test)");
            }
            throttle();
            Row row = (Row) converter.toExternal(element);
            List<Object> values = new ArrayList<>(settings.physical.size());
            for (int i : settings.physical) {
                values.add(StrictTable.normalize(settings.names.get(i), row.getField(i)));
            }
            List<Object> key = new ArrayList<>(settings.key.size());
            for (String column : settings.key) {
                key.add(StrictTable.normalize(column, row.getField(settings.names.indexOf(column))));
            }
            String shard = (String) row.getField(settings.shard);
            String position = settings.position < 0 ? null : (String) row.getField(settings.position);
            boolean snapshot = settings.snapshot >= 0 && (Boolean) row.getField(settings.snapshot);
            long epoch = settings.epoch < 0 ? -1 : (Long) row.getField(settings.epoch);
            long rank = settings.rank < 0 ? -1 : (Long) row.getField(settings.rank);
            pending.add(new RecordedChangelog.Entry(
                    element.getRowKind(),
                    key,
                    values,
                    shard,
                    snapshot,
                    position != null && RenderedPositions.copyCompleted(position),
                    epoch,
                    rank));
        }

        /** At most rowsPerSecond records per second, without bursts after a pause. */
        private void throttle() throws InterruptedException {
            if (periodNanos == 0) {
                return;
            }
            long now = System.nanoTime();
            if (nextRecordNanos > now) {
                TimeUnit.NANOSECONDS.sleep(nextRecordNanos - now);
            }
            nextRecordNanos = Math.max(nextRecordNanos, now) + periodNanos;
        }

        /** Also without records: its commit tells {@link RecordedChangelog#awaitCommitted} the checkpoint passed. */
        @Override
        public Collection<Batch> prepareCommit() {
            Batch batch = new Batch(writerId + "/" + batches++, writerId, writtenBy, System.nanoTime(), pending);
            pending = new ArrayList<>();
            return List.of(batch);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {
            recording.closed(writerId);
        }
    }

    /** Batches as bytes: the committer's state in checkpoints and savepoints. */
    private static final class BatchSerializer implements SimpleVersionedSerializer<Batch> {
        @Override
        public int getVersion() {
            return 3;
        }

        @Override
        public byte[] serialize(Batch batch) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeUTF(batch.id);
            out.writeUTF(batch.writerId);
            out.writeUTF(batch.writtenBy);
            out.writeLong(batch.preparedAtNanos);
            out.writeInt(batch.entries.size());
            for (RecordedChangelog.Entry e : batch.entries) {
                out.writeByte(e.kind.toByteValue());
                writeNullable(out, e.shard);
                out.writeBoolean(e.snapshot);
                out.writeBoolean(e.afterCopy);
                out.writeLong(e.epoch);
                out.writeLong(e.rank);
                writeValues(out, e.key);
                writeValues(out, e.row);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public Batch deserialize(int version, byte[] serialized) throws IOException {
            if (version != getVersion()) {
                throw new IOException("batch version " + version + ", this sink writes " + getVersion());
            }
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            String id = in.readUTF();
            String writerId = in.readUTF();
            String writtenBy = in.readUTF();
            long preparedAtNanos = in.readLong();
            int n = in.readInt();
            List<RecordedChangelog.Entry> entries = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                RowKind kind = RowKind.fromByteValue(in.readByte());
                String shard = readNullable(in);
                boolean snapshot = in.readBoolean();
                boolean afterCopy = in.readBoolean();
                long epoch = in.readLong();
                long rank = in.readLong();
                entries.add(new RecordedChangelog.Entry(
                        kind, readValues(in), readValues(in), shard, snapshot, afterCopy, epoch, rank));
            }
            return new Batch(id, writerId, writtenBy, preparedAtNanos, entries);
        }

        private static void writeValues(DataOutputSerializer out, List<Object> values) throws IOException {
            out.writeInt(values.size());
            for (Object v : values) {
                writeNullable(out, (String) v);
            }
        }

        private static List<Object> readValues(DataInputDeserializer in) throws IOException {
            int n = in.readInt();
            List<Object> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(readNullable(in));
            }
            return out;
        }

        private static void writeNullable(DataOutputSerializer out, String s) throws IOException {
            out.writeBoolean(s != null);
            if (s != null) {
                out.writeUTF(s);
            }
        }

        private static String readNullable(DataInputDeserializer in) throws IOException {
            return in.readBoolean() ? in.readUTF() : null;
        }
    }
}
