package io.vitesscdc.source.enumerator;

import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.split.VitessSplitSerializer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Versioned enumerator-state serializer; every version ever written stays readable (golden bytes
 * in {@code VitessEnumeratorStateSerializerTest}).
 *
 * <p>Version 1: {@code boolean discovered; int n; n x utf (assigned split id); int m; m x (int
 * split serializer version, int length, split bytes)} — nested splits carry their own version,
 * so the split format can evolve independently.
 */
@Internal
public final class VitessEnumeratorStateSerializer implements SimpleVersionedSerializer<VitessEnumeratorState> {

    public static final int VERSION_1 = 1;
    public static final int CURRENT_VERSION = VERSION_1;

    private final VitessSplitSerializer splitSerializer = VitessSplitSerializer.INSTANCE;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(VitessEnumeratorState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeBoolean(state.discovered());
        out.writeInt(state.assignedSplitIds().size());
        for (String id : state.assignedSplitIds()) {
            out.writeUTF(id);
        }
        out.writeInt(state.unassignedSplits().size());
        for (VitessSplit split : state.unassignedSplits()) {
            byte[] bytes = splitSerializer.serialize(split);
            out.writeInt(splitSerializer.getVersion());
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public VitessEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        switch (version) {
            case VERSION_1:
                return deserializeV1(serialized);
            default:
                throw new IOException("Unknown Vitess enumerator state version " + version + " (this connector reads "
                        + "versions 1.." + CURRENT_VERSION + "): the state was written by a newer connector");
        }
    }

    private VitessEnumeratorState deserializeV1(byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        boolean discovered = in.readBoolean();
        int n = in.readInt();
        Set<String> assigned = new HashSet<>();
        for (int i = 0; i < n; i++) {
            assigned.add(in.readUTF());
        }
        int m = in.readInt();
        List<VitessSplit> unassigned = new ArrayList<>(m);
        for (int i = 0; i < m; i++) {
            int splitVersion = in.readInt();
            int length = in.readInt();
            if (length < 0 || length > in.available()) {
                throw new IOException("corrupt Vitess enumerator state: split of " + length + " bytes");
            }
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            unassigned.add(splitSerializer.deserialize(splitVersion, bytes));
        }
        if (in.available() != 0) {
            throw new IOException("corrupt Vitess enumerator state: " + in.available() + " trailing bytes");
        }
        return new VitessEnumeratorState(discovered, assigned, unassigned);
    }
}
