/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.UnreadableStateException;
import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.split.VitessSplitSerializer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Versioned enumerator-state serializer; every version ever written stays readable (golden bytes
 * in {@code VitessEnumeratorStateSerializerTest}).
 *
 * <p>Version 1: {@code boolean discovered; int n; n x utf (assigned split id); int m; m x (int
 * split serializer version, int length, split bytes)} — nested splits carry their own version,
 * so the split format can evolve independently.
 *
 * <p>Version 2 (resharding): {@code boolean discovered; int n; n x (utf assigned split id, int
 * owner reader or -1); int m; m x nested split as in version 1; int p; p x pending journal; int
 * c; c x long completed journal id}, where a pending journal is {@code long id, utf keyspace,
 * int k, k x utf participant, int s, s x (utf new shard, str start position), int e, e x utf
 * ended participant} and {@code str} is an int length plus UTF-8 bytes (positions can exceed the
 * 64 KiB limit of {@code writeUTF}).
 *
 * <p>Version 3 (positions as bytes): version 2 with each new shard's start position as {@code
 * bytes} (an int length plus the core's binary position) instead of {@code str} JSON; nested
 * splits carry their own (split serializer) version as before. Reading version 2 converts the
 * JSON positions to bytes through the core (golden bytes in {@code src/test/resources/state}).
 *
 * <p>Version 4 (order epochs): version 3 with each pending journal followed by {@code long} the
 * highest order epoch of its ended participants. Older versions read it as 0.
 *
 * <p>Version 5 (completion keys): version 4's layout; each completed journal's {@code long} is its
 * {@link ReshardJournal#completionKey()} (the whole journal's hash), no longer its id, which a
 * reshard repeated into the same shards shares. Ids read from older versions still match a
 * repeat of their journal by id.
 *
 * <p>Version 6 (captures across reshards): version 5 with each pending journal's epoch followed
 * by {@code int q; q x (utf ended participant, bytes final position)}: the positions the ended
 * participants reported, whose chunked-snapshot cursors the new shards go on with. Older
 * versions read as none.
 */
@Internal
public final class VitessEnumeratorStateSerializer implements SimpleVersionedSerializer<VitessEnumeratorState> {

    public static final int VERSION_1 = 1;
    public static final int VERSION_2 = 2;
    public static final int VERSION_3 = 3;
    public static final int VERSION_4 = 4;
    public static final int VERSION_5 = 5;
    public static final int VERSION_6 = 6;
    public static final int CURRENT_VERSION = VERSION_6;

    private final VitessSplitSerializer splitSerializer = VitessSplitSerializer.INSTANCE;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(VitessEnumeratorState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeBoolean(state.discovered());
        Map<String, Integer> owners = new TreeMap<>(state.assignedOwners());
        out.writeInt(owners.size());
        for (Map.Entry<String, Integer> e : owners.entrySet()) {
            out.writeUTF(e.getKey());
            out.writeInt(e.getValue());
        }
        out.writeInt(state.unassignedSplits().size());
        for (VitessSplit split : state.unassignedSplits()) {
            byte[] bytes = splitSerializer.serialize(split);
            out.writeInt(splitSerializer.getVersion());
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        out.writeInt(state.pendingJournals().size());
        for (PendingJournal pending : state.pendingJournals()) {
            ReshardJournal j = pending.journal();
            out.writeLong(j.id());
            out.writeUTF(j.keyspace());
            out.writeInt(j.participants().size());
            for (String p : j.participants()) {
                out.writeUTF(p);
            }
            out.writeInt(j.started().size());
            for (Map.Entry<String, Position> e : j.started().entrySet()) {
                out.writeUTF(e.getKey());
                byte[] position = e.getValue().toBytes();
                out.writeInt(position.length);
                out.write(position);
            }
            out.writeInt(pending.endedShards().size());
            for (String shard : pending.endedShards()) {
                out.writeUTF(shard);
            }
            out.writeLong(pending.maxEndedEpoch());
            out.writeInt(pending.endedPositions().size());
            for (Map.Entry<String, Position> e : pending.endedPositions().entrySet()) {
                out.writeUTF(e.getKey());
                byte[] position = e.getValue().toBytes();
                out.writeInt(position.length);
                out.write(position);
            }
        }
        Set<Long> completed = new TreeSet<>(state.completedJournals());
        out.writeInt(completed.size());
        for (long id : completed) {
            out.writeLong(id);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public VitessEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        return UnreadableStateException.read("Vitess enumerator", version, CURRENT_VERSION, serialized, this::read);
    }

    private VitessEnumeratorState read(int version, byte[] serialized) throws IOException {
        switch (version) {
            case VERSION_1:
                return deserializeV1(serialized);
            case VERSION_2:
                return deserializeV2(serialized, false, false, false);
            case VERSION_3:
                return deserializeV2(serialized, true, false, false);
            case VERSION_4:
            case VERSION_5:
                return deserializeV2(serialized, true, true, false);
            default:
                return deserializeV2(serialized, true, true, true);
        }
    }

    private VitessEnumeratorState deserializeV1(byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        boolean discovered = in.readBoolean();
        int n = count(in);
        Set<String> assigned = new HashSet<>();
        for (int i = 0; i < n; i++) {
            assigned.add(in.readUTF());
        }
        List<VitessSplit> unassigned = readSplits(in);
        expectEnd(in);
        return new VitessEnumeratorState(discovered, assigned, unassigned);
    }

    /**
     * Versions 2 to 6: the same layout, start positions as JSON text (2) or bytes (3 on), each
     * pending journal's epoch (4 on) and its ended participants' final positions (6) last.
     */
    private VitessEnumeratorState deserializeV2(
            byte[] serialized, boolean positionBytes, boolean withEpochs, boolean withEndedPositions)
            throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        boolean discovered = in.readBoolean();
        int n = count(in);
        Map<String, Integer> owners = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            owners.put(in.readUTF(), in.readInt());
        }
        List<VitessSplit> unassigned = readSplits(in);
        int p = count(in);
        List<PendingJournal> pending = new ArrayList<>(p);
        for (int i = 0; i < p; i++) {
            long id = in.readLong();
            String keyspace = in.readUTF();
            int k = count(in);
            List<String> participants = new ArrayList<>(k);
            for (int x = 0; x < k; x++) {
                participants.add(in.readUTF());
            }
            int s = count(in);
            Map<String, Position> started = new LinkedHashMap<>();
            for (int x = 0; x < s; x++) {
                String shard = in.readUTF();
                started.put(shard, positionBytes ? checkedPosition(readLongBytes(in)) : savedJson(keyspace, shard, in));
            }
            int e = count(in);
            Set<String> ended = new TreeSet<>();
            for (int x = 0; x < e; x++) {
                ended.add(in.readUTF());
            }
            long maxEndedEpoch = withEpochs ? in.readLong() : 0;
            if (maxEndedEpoch < 0) {
                throw new IOException("corrupt Vitess enumerator state: epoch " + maxEndedEpoch);
            }
            Map<String, Position> endedPositions = new TreeMap<>();
            int q = withEndedPositions ? count(in) : 0;
            for (int x = 0; x < q; x++) {
                endedPositions.put(in.readUTF(), checkedPosition(readLongBytes(in)));
            }
            try {
                pending.add(new PendingJournal(
                        new ReshardJournal(id, keyspace, participants, started), ended, maxEndedEpoch, endedPositions));
            } catch (IllegalArgumentException bad) {
                throw new IOException("corrupt Vitess enumerator state: " + bad.getMessage(), bad);
            }
        }
        int c = count(in);
        Set<Long> completed = new HashSet<>();
        for (int i = 0; i < c; i++) {
            completed.add(in.readLong());
        }
        expectEnd(in);
        return new VitessEnumeratorState(discovered, owners, unassigned, pending, completed);
    }

    private List<VitessSplit> readSplits(DataInputDeserializer in) throws IOException {
        int m = count(in);
        List<VitessSplit> splits = new ArrayList<>(m);
        for (int i = 0; i < m; i++) {
            int splitVersion = in.readInt();
            int length = in.readInt();
            if (length < 0 || length > in.available()) {
                throw new IOException("corrupt Vitess enumerator state: split of " + length + " bytes");
            }
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            splits.add(splitSerializer.deserialize(splitVersion, bytes));
        }
        return splits;
    }

    /** A count of entries, each at least 1 byte long. */
    private static int count(DataInputDeserializer in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException(
                    "corrupt Vitess enumerator state: a count of " + n + " with " + in.available() + " bytes left");
        }
        return n;
    }

    private static void expectEnd(DataInputDeserializer in) throws IOException {
        if (in.available() != 0) {
            throw new IOException("corrupt Vitess enumerator state: " + in.available() + " trailing bytes");
        }
    }

    /** A position JSON version 2 stored, converted by the core (Java does not read it). */
    private static Position savedJson(String keyspace, String shard, DataInputDeserializer in) throws IOException {
        String json = new String(readLongBytes(in), StandardCharsets.UTF_8);
        try {
            return Position.fromSavedJson(keyspace, shard, json);
        } catch (RuntimeException e) {
            throw new IOException(
                    "cannot restore the start position of new shard " + keyspace + "/" + shard
                            + " of a reshard journal: " + e.getMessage(),
                    e);
        }
    }

    /** Decoded now (by the core) so corrupt bytes fail the restore, not the enumerator later. */
    private static Position checkedPosition(byte[] bytes) {
        Position position = Position.of(bytes);
        position.copyCompleted();
        return position;
    }

    private static byte[] readLongBytes(DataInputDeserializer in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException(
                    "corrupt Vitess enumerator state: string of " + n + " bytes, " + in.available() + " left");
        }
        byte[] bytes = new byte[n];
        in.readFully(bytes);
        return bytes;
    }
}
