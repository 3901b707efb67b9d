package io.vitesscdc.table;

import io.vitesscdc.source.testutils.RenderedPositions;
import io.vitesscdc.source.testutils.RecordedChangelog;
import io.vitesscdc.source.testutils.StrictTable;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
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
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A test SQL sink ({@code 'connector' = 'recorded-changelog'}) that records a source's raw
 * changelog into {@link RecordedChangelog} {@code 'recording-id'}, exactly once: records are
 * committed per completed checkpoint (Sink V2 committer), so after a failure or a restore the
 * recording holds each record of the job's consistent history once, in the order the source
 * emitted it per subtask (per shard: one split is read by one subtask).
 *
 * <p>Columns: the table's physical columns, then {@code shard STRING} ({@code shard} metadata),
 * {@code pos STRING} ({@code position}) and {@code snap BOOLEAN} ({@code is_snapshot}). The key is
 * {@code 'key-columns'} ({@code ;}-separated); the row is every physical column. Values are
 * recorded as {@link StrictTable#normalize} text.
 *
 * <p>{@code 'rows-per-second'} throttles each subtask: chained to the source, it slows the copy
 * down as seen by Flink, so checkpoints and savepoints fall inside it. {@code 'job-label'} names
 * the job run in the recording ({@link RecordedChangelog#snapshotRecordsBy}).
 */
public final class RecordedChangelogSinkFactory implements DynamicTableSinkFactory {

    static final ConfigOption<String> RECORDING_ID = ConfigOptions.key("recording-id").stringType().noDefaultValue();
    static final ConfigOption<String> KEY_COLUMNS = ConfigOptions.key("key-columns").stringType().noDefaultValue();
    static final ConfigOption<Integer> ROWS_PER_SECOND = ConfigOptions.key("rows-per-second").intType()
            .defaultValue(0);
    static final ConfigOption<String> JOB_LABEL = ConfigOptions.key("job-label").stringType().defaultValue("job");

    private static final List<String> METADATA = List.of("shard", "pos", "snap");

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
        if (!names.subList(names.size() - METADATA.size(), names.size()).equals(METADATA)) {
            throw new IllegalArgumentException("the last columns must be " + METADATA + ", got " + names);
        }
        List<String> key = Arrays.asList(helper.getOptions().get(KEY_COLUMNS).split(";"));
        if (!names.containsAll(key)) {
            throw new IllegalArgumentException("key columns " + key + " are not all in " + names);
        }
        return new RecordingTableSink(new Settings(helper.getOptions().get(RECORDING_ID), names, key,
                helper.getOptions().get(ROWS_PER_SECOND), helper.getOptions().get(JOB_LABEL)), rowType);
    }

    /** Everything a writer needs, serializable. */
    private static final class Settings implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        final String recordingId;
        final List<String> names;
        final List<String> key;
        final int rowsPerSecond;
        final String jobLabel;

        Settings(String recordingId, List<String> names, List<String> key, int rowsPerSecond, String jobLabel) {
            this.recordingId = recordingId;
            this.names = new ArrayList<>(names);
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

    /** One checkpoint's records of one writer; {@code id} is unique (a writer UUID and a sequence). */
    static final class Batch {
        final String id;
        final String writtenBy;
        final List<RecordedChangelog.Entry> entries;

        Batch(String id, String writtenBy, List<RecordedChangelog.Entry> entries) {
            this.id = id;
            this.writtenBy = writtenBy;
            this.entries = entries;
        }
    }

    private static final class RecordingSink implements Sink<RowData>, SupportsCommitter<Batch> {
        private static final long serialVersionUID = 1L;
        private final Settings settings;
        private final DynamicTableSink.DataStructureConverter converter;

        RecordingSink(Settings settings, DynamicTableSink.DataStructureConverter converter) {
            this.settings = settings;
            this.converter = converter;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            converter.open(RuntimeConverter.Context.create(Thread.currentThread().getContextClassLoader()));
            return new RecordingWriter(settings, converter,
                    settings.jobLabel + "/attempt " + context.getTaskInfo().getAttemptNumber());
        }

        @Override
        public Committer<Batch> createCommitter(CommitterInitContext context) {
            RecordedChangelog recording = RecordedChangelog.get(settings.recordingId);
            return new Committer<>() {
                @Override
                public void commit(Collection<CommitRequest<Batch>> requests) {
                    for (CommitRequest<Batch> r : requests) {
                        recording.commit(r.getCommittable().id, r.getCommittable().writtenBy,
                                r.getCommittable().entries);
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
        }

        @Override
        public void write(RowData element, Context context) throws InterruptedException {
            if (recording.takeFailure()) {
                throw new IllegalStateException("injected failure (test)");
            }
            throttle();
            Row row = (Row) converter.toExternal(element);
            int physical = settings.names.size() - METADATA.size();
            List<Object> values = new ArrayList<>(physical);
            for (int i = 0; i < physical; i++) {
                values.add(StrictTable.normalize(settings.names.get(i), row.getField(i)));
            }
            List<Object> key = new ArrayList<>(settings.key.size());
            for (String column : settings.key) {
                key.add(values.get(settings.names.indexOf(column)));
            }
            String shard = (String) row.getField(physical);
            String position = (String) row.getField(physical + 1);
            boolean snapshot = (Boolean) row.getField(physical + 2);
            pending.add(new RecordedChangelog.Entry(element.getRowKind(), key, values, shard, snapshot,
                    position != null && RenderedPositions.copyCompleted(position)));
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

        @Override
        public Collection<Batch> prepareCommit() {
            if (pending.isEmpty()) {
                return List.of();
            }
            Batch batch = new Batch(writerId + "/" + batches++, writtenBy, pending);
            pending = new ArrayList<>();
            return List.of(batch);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
    }

    /** Batches as bytes: the committer's state in checkpoints and savepoints. */
    private static final class BatchSerializer implements SimpleVersionedSerializer<Batch> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Batch batch) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeUTF(batch.id);
            out.writeUTF(batch.writtenBy);
            out.writeInt(batch.entries.size());
            for (RecordedChangelog.Entry e : batch.entries) {
                out.writeByte(e.kind.toByteValue());
                writeNullable(out, e.shard);
                out.writeBoolean(e.snapshot);
                out.writeBoolean(e.afterCopy);
                writeValues(out, e.key);
                writeValues(out, e.row);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public Batch deserialize(int version, byte[] serialized) throws IOException {
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            String id = in.readUTF();
            String writtenBy = in.readUTF();
            int n = in.readInt();
            List<RecordedChangelog.Entry> entries = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                RowKind kind = RowKind.fromByteValue(in.readByte());
                String shard = readNullable(in);
                boolean snapshot = in.readBoolean();
                boolean afterCopy = in.readBoolean();
                entries.add(new RecordedChangelog.Entry(kind, readValues(in), readValues(in), shard, snapshot,
                        afterCopy));
            }
            return new Batch(id, writtenBy, entries);
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
