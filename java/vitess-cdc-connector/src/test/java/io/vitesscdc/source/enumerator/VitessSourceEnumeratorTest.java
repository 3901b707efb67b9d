package io.vitesscdc.source.enumerator;

import io.vitesscdc.source.split.ShardPositions;
import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VitessSourceEnumeratorTest {

    private static final String KS = "customer";

    private static ShardDiscovery shards(String... shards) {
        return () -> {
            Map<String, String> m = new LinkedHashMap<>();
            for (String s : shards) {
                m.put(s, ShardPositions.start(KS, s, ""));
            }
            return m;
        };
    }

    private static Map<Integer, List<String>> assignedIds(MockSplitEnumeratorContext<VitessSplit> ctx) {
        Map<Integer, List<String>> out = new TreeMap<>();
        for (SplitsAssignment<VitessSplit> a : ctx.getSplitsAssignmentSequence()) {
            a.assignment().forEach((reader, splits) -> {
                for (VitessSplit s : splits) {
                    out.computeIfAbsent(reader, k -> new ArrayList<>()).add(s.splitId());
                }
            });
        }
        return out;
    }

    @Test
    void oneSplitPerShardBalancedAcrossReaders() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx, shards("-40", "40-80", "80-c0", "c0-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, null);
            e.start();
            register(ctx, e, 0);
            register(ctx, e, 1);
            ctx.runNextOneTimeCallable();
            assertThat(assignedIds(ctx)).isEqualTo(Map.of(
                    0, List.of("customer/-40", "customer/80-c0"),
                    1, List.of("customer/40-80", "customer/c0-")));
            assertThat(ctx.hasNoMoreSplits(0)).isFalse();
            assertThat(e.snapshotState(1).unassignedSplits()).isEmpty();
            assertThat(e.snapshotState(1).assignedSplitIds()).hasSize(4);
        }
    }

    @Test
    void splitsWaitForTheirOwner() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx, shards("-80", "80-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, null);
            e.start();
            ctx.runNextOneTimeCallable();
            register(ctx, e, 1);
            assertThat(assignedIds(ctx)).isEqualTo(Map.of(1, List.of("customer/80-")));
            VitessEnumeratorState state = e.snapshotState(1);
            assertThat(state.unassignedSplits()).extracting(VitessSplit::splitId).containsExactly("customer/-80");
            register(ctx, e, 0);
            assertThat(assignedIds(ctx)).containsEntry(0, List.of("customer/-80"));
        }
    }

    @Test
    void failedReaderGetsItsSplitsBackWithTheirPositions() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx, shards("-80", "80-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, null);
            e.start();
            register(ctx, e, 0);
            register(ctx, e, 1);
            ctx.runNextOneTimeCallable();
            VitessSplit progressed = new VitessSplit(KS, "-80", "{\"gtid\":\"MySQL56/a:1-9\"}", 4);
            ctx.unregisterReader(0);
            e.addSplitsBack(List.of(progressed), 0);
            assertThat(e.snapshotState(2).unassignedSplits()).containsExactly(progressed);
            register(ctx, e, 0);
            List<SplitsAssignment<VitessSplit>> seq = ctx.getSplitsAssignmentSequence();
            assertThat(seq.get(seq.size() - 1).assignment()).containsExactlyEntriesOf(Map.of(0, List.of(progressed)));
        }
    }

    @Test
    void restoredEnumeratorDoesNotRediscover() throws Throwable {
        VitessSplit waiting = new VitessSplit(KS, "80-", "{\"gtid\":\"g\"}", 0);
        VitessEnumeratorState restored = new VitessEnumeratorState(true, Set.of("customer/-80"), List.of(waiting));
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(4)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx, () -> {
                        throw new AssertionError("must not rediscover");
                    }, KS, Boundedness.CONTINUOUS_UNBOUNDED, restored);
            e.start();
            assertThat(ctx.getOneTimeCallables()).isEmpty();
            for (int i = 0; i < 4; i++) {
                register(ctx, e, i);
            }
            assertThat(assignedIds(ctx)).isEqualTo(Map.of(1, List.of("customer/80-")));
        }
    }

    @Test
    void boundedSignalsNoMoreSplitsAfterAssigning() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(3)) {
            VitessSourceEnumerator e =
                    new VitessSourceEnumerator(ctx, shards("-80", "80-"), KS, Boundedness.BOUNDED, null);
            e.start();
            for (int i = 0; i < 3; i++) {
                register(ctx, e, i);
            }
            assertThat(ctx.hasNoMoreSplits(0)).isFalse();
            ctx.runNextOneTimeCallable();
            assertThat(ctx.hasNoMoreSplits(0)).isTrue();
            assertThat(ctx.hasNoMoreSplits(1)).isTrue();
            assertThat(ctx.hasNoMoreSplits(2)).isTrue();
            assertThat(assignedIds(ctx)).containsOnlyKeys(0, 1);
        }
    }

    @Test
    void discoveryFailureFailsWithTheCause() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(1)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(ctx, () -> {
                throw new IllegalArgumentException("keyspace 'nope' not found");
            }, "nope", Boundedness.CONTINUOUS_UNBOUNDED, null);
            e.start();
            assertThatThrownBy(ctx::runNextOneTimeCallable)
                    .isInstanceOf(SourceConfigurationError.class)
                    .hasMessageContaining("Discovering the shards of Vitess keyspace 'nope' failed")
                    .hasMessageContaining("keyspace 'nope' not found");
        }
    }

    private static void register(MockSplitEnumeratorContext<VitessSplit> ctx, VitessSourceEnumerator e, int id) {
        ctx.registerReader(new ReaderInfo(id, "localhost"));
        e.addReader(id);
    }
}
