/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.split;

import io.vitesscdc.nativeio.Position;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Versioned split serializer. Every version ever written stays readable: add a {@code VERSION_n}
 * constant and a branch, never change an existing one (the golden bytes in
 * {@code VitessSplitSerializerTest} guard this).
 *
 * <p>Version 1: {@code utf8 keyspace, utf8 shard, utf8 position, long recordsSinceMark}, where
 * {@code utf8} is an int length followed by UTF-8 bytes (VGTIDs can exceed the 64 KiB limit of
 * {@code writeUTF}).
 *
 * <p>Version 2: version 1, then {@code boolean ended}; when ended, the reshard journal: {@code
 * long id, int n, n x utf8 participant shard, int m, m x (utf8 new shard, utf8 start position)}
 * (the keyspace is the split's).
 *
 * <p>Version 3 (positions as bytes): version 2 with every position, the split's and each new
 * shard's, as {@code bytes} (an int length followed by the core's binary position, unread here)
 * instead of {@code utf8} JSON. Versions 1 and 2 stored the core's position JSON; reading them
 * converts each position to bytes through the core ({@link Position#fromSavedJson}), so old
 * checkpoints and savepoints restore (golden bytes in {@code src/test/resources/state}).
 *
 * <p>Version 4 (order epochs): version 3, then {@code long epoch}. Older versions read as epoch 0
 * (their jobs never assigned one; a reshard after the restore raises it as usual).
 *
 * <p>Version 5 (tables seen): version 4, then {@code int n, n x utf8 table}: the tables the split's
 * position has seen ({@link VitessSplit#tables()}). Older versions read as none known (a restore
 * from them captures no added table; the first mark after it records the job's tables).
 */
@Internal
public final class VitessSplitSerializer implements SimpleVersionedSerializer<VitessSplit> {

    public static final VitessSplitSerializer INSTANCE = new VitessSplitSerializer();

    public static final int VERSION_1 = 1;
    public static final int VERSION_2 = 2;
    public static final int VERSION_3 = 3;
    public static final int VERSION_4 = 4;
    public static final int VERSION_5 = 5;
    public static final int CURRENT_VERSION = VERSION_5;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(VitessSplit split) throws IOException {
        DataOutputSerializer out =
                new DataOutputSerializer(64 + split.position().length());
        writeString(out, split.keyspace());
        writeString(out, split.shard());
        writePosition(out, split.position());
        out.writeLong(split.recordsSinceMark());
        ReshardJournal journal = split.endedBy();
        out.writeBoolean(journal != null);
        if (journal != null) {
            out.writeLong(journal.id());
            out.writeInt(journal.participants().size());
            for (String participant : journal.participants()) {
                writeString(out, participant);
            }
            out.writeInt(journal.started().size());
            for (Map.Entry<String, Position> e : journal.started().entrySet()) {
                writeString(out, e.getKey());
                writePosition(out, e.getValue());
            }
        }
        out.writeLong(split.epoch());
        out.writeInt(split.tables().size());
        for (String table : split.tables()) {
            writeString(out, table);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public VitessSplit deserialize(int version, byte[] serialized) throws IOException {
        return UnreadableStateException.read("Vitess split", version, CURRENT_VERSION, serialized, this::read);
    }

    private VitessSplit read(int version, byte[] serialized) throws IOException {
        switch (version) {
            case VERSION_1:
                return deserializeV1(serialized);
            case VERSION_2:
                return deserializeV2(serialized, false, false, false);
            case VERSION_3:
                return deserializeV2(serialized, true, false, false);
            case VERSION_4:
                return deserializeV2(serialized, true, true, false);
            default:
                return deserializeV2(serialized, true, true, true);
        }
    }

    private static VitessSplit deserializeV1(byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        String keyspace = readString(in);
        String shard = readString(in);
        Position position = savedJson(keyspace, shard, readString(in));
        long recordsSinceMark = in.readLong();
        if (in.available() != 0) {
            throw new IOException("corrupt Vitess split state: " + in.available() + " trailing bytes");
        }
        return new VitessSplit(keyspace, shard, position, recordsSinceMark);
    }

    /**
     * Versions 2 to 5: the same layout, positions as JSON text (2) or bytes (3 on), then the epoch
     * (4 on), then the tables seen (5).
     */
    private static VitessSplit deserializeV2(
            byte[] serialized, boolean positionBytes, boolean withEpoch, boolean withTables) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        String keyspace = readString(in);
        String shard = readString(in);
        Position position = positionBytes ? readPosition(in) : savedJson(keyspace, shard, readString(in));
        long recordsSinceMark = in.readLong();
        ReshardJournal journal = null;
        if (in.readBoolean()) {
            long id = in.readLong();
            int n = readCount(in);
            List<String> participants = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                participants.add(readString(in));
            }
            int m = readCount(in);
            Map<String, Position> started = new LinkedHashMap<>();
            for (int i = 0; i < m; i++) {
                String newShard = readString(in);
                started.put(newShard, positionBytes ? readPosition(in) : savedJson(keyspace, newShard, readString(in)));
            }
            try {
                journal = new ReshardJournal(id, keyspace, participants, started);
            } catch (IllegalArgumentException e) {
                throw new IOException("corrupt Vitess split state: " + e.getMessage(), e);
            }
        }
        long epoch = withEpoch ? in.readLong() : 0;
        List<String> tables = new ArrayList<>();
        if (withTables) {
            int n = readCount(in);
            for (int i = 0; i < n; i++) {
                tables.add(readString(in));
            }
        }
        if (in.available() != 0) {
            throw new IOException("corrupt Vitess split state: " + in.available() + " trailing bytes");
        }
        if (epoch < 0) {
            throw new IOException("corrupt Vitess split state: epoch " + epoch);
        }
        return new VitessSplit(keyspace, shard, position, recordsSinceMark, journal, epoch, tables);
    }

    /** A count of entries each at least 4 bytes long. */
    static int readCount(DataInputDeserializer in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available() / 4) {
            throw new IOException("corrupt Vitess state: a count of " + n + " with " + in.available() + " bytes left");
        }
        return n;
    }

    /**
     * A position JSON an older version stored, converted by the core (Java does not read it).
     * The core checks it; a corrupt one fails the restore with the core's message.
     */
    static Position savedJson(String keyspace, String shard, String json) throws IOException {
        try {
            return Position.fromSavedJson(keyspace, shard, json);
        } catch (RuntimeException e) {
            throw new IOException(
                    "cannot restore the position of Vitess split " + VitessSplit.splitId(keyspace, shard) + ": "
                            + e.getMessage(),
                    e);
        }
    }

    static void writePosition(DataOutputSerializer out, Position position) throws IOException {
        byte[] bytes = position.toBytes();
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static Position readPosition(DataInputDeserializer in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException(
                    "corrupt Vitess split state: position of " + n + " bytes, " + in.available() + " left");
        }
        byte[] bytes = new byte[n];
        in.readFully(bytes);
        Position position = Position.of(bytes);
        // Decoded now (by the core) so corrupt bytes fail the restore, not a reader later.
        position.copyCompleted();
        return position;
    }

    static void writeString(DataOutputSerializer out, String s) throws IOException {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readString(DataInputDeserializer in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("corrupt Vitess split state: string of " + n + " bytes, " + in.available() + " left");
        }
        byte[] bytes = new byte[n];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
