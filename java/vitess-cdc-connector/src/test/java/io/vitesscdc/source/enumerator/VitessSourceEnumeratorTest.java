/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.event.ShardEndedAck;
import io.vitesscdc.source.event.ShardEndedEvent;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.testutils.RenderedPositions;

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
            Map<String, Position> m = new LinkedHashMap<>();
            for (String s : shards) {
                m.put(s, RenderedPositions.start(KS, s, ""));
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
            assertThat(assignedIds(ctx))
                    .isEqualTo(Map.of(
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
            VitessSourceEnumerator e =
                    new VitessSourceEnumerator(ctx, shards("-80", "80-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, null);
            e.start();
            ctx.runNextOneTimeCallable();
            register(ctx, e, 1);
            assertThat(assignedIds(ctx)).isEqualTo(Map.of(1, List.of("customer/80-")));
            VitessEnumeratorState state = e.snapshotState(1);
            assertThat(state.unassignedSplits())
                    .extracting(VitessSplit::splitId)
                    .containsExactly("customer/-80");
            register(ctx, e, 0);
            assertThat(assignedIds(ctx)).containsEntry(0, List.of("customer/-80"));
        }
    }

    @Test
    void failedReaderGetsItsSplitsBackWithTheirPositions() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e =
                    new VitessSourceEnumerator(ctx, shards("-80", "80-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, null);
            e.start();
            register(ctx, e, 0);
            register(ctx, e, 1);
            ctx.runNextOneTimeCallable();
            VitessSplit progressed =
                    new VitessSplit(KS, "-80", RenderedPositions.of(KS, "-80", "{\"gtid\":\"MySQL56/a:1-9\"}"), 4);
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
        VitessSplit waiting = new VitessSplit(KS, "80-", RenderedPositions.of(KS, "80-", "{\"gtid\":\"g\"}"), 0);
        VitessEnumeratorState restored = new VitessEnumeratorState(true, Set.of("customer/-80"), List.of(waiting));
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(4)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx,
                    () -> {
                        throw new AssertionError("must not rediscover");
                    },
                    KS,
                    Boundedness.CONTINUOUS_UNBOUNDED,
                    restored);
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
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx,
                    () -> {
                        throw new IllegalArgumentException("keyspace 'nope' not found");
                    },
                    "nope",
                    Boundedness.CONTINUOUS_UNBOUNDED,
                    null);
            e.start();
            assertThatThrownBy(ctx::runNextOneTimeCallable)
                    .isInstanceOf(SourceConfigurationError.class)
                    .hasMessageContaining("Discovering the shards of Vitess keyspace 'nope' failed")
                    .hasMessageContaining("keyspace 'nope' not found");
        }
    }

    // ---- resharding ----

    private static Position pos(String shard) {
        return RenderedPositions.start(KS, shard, shard + "@0");
    }

    private static ReshardJournal journal(long id, List<String> participants, List<String> started) {
        Map<String, Position> positions = new LinkedHashMap<>();
        for (String s : started) {
            positions.put(s, pos(s));
        }
        return new ReshardJournal(id, KS, participants, positions);
    }

    private static ShardEndedEvent ended(String shard, ReshardJournal j, boolean durable) {
        return new ShardEndedEvent(KS, shard, j, durable, 0);
    }

    /** An enumerator that assigned -80 to reader 0 and 80- to reader 1 (parallelism 2). */
    private static VitessSourceEnumerator twoShards(MockSplitEnumeratorContext<VitessSplit> ctx) throws Throwable {
        VitessSourceEnumerator e =
                new VitessSourceEnumerator(ctx, shards("-80", "80-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, null);
        e.start();
        register(ctx, e, 0);
        register(ctx, e, 1);
        ctx.runNextOneTimeCallable();
        assertThat(assignedIds(ctx)).isEqualTo(Map.of(0, List.of("customer/-80"), 1, List.of("customer/80-")));
        return e;
    }

    private static List<VitessSplit> assignedAfter(MockSplitEnumeratorContext<VitessSplit> ctx, int from) {
        List<VitessSplit> out = new ArrayList<>();
        List<SplitsAssignment<VitessSplit>> seq = ctx.getSplitsAssignmentSequence();
        for (SplitsAssignment<VitessSplit> a : seq.subList(from, seq.size())) {
            a.assignment().values().forEach(out::addAll);
        }
        return out;
    }

    @Test
    void aSplitStartsTheNewShardsAtTheJournalPositionsBalancedAcrossReaders() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            e.snapshotState(1);
            ReshardJournal j = journal(7, List.of("-80"), List.of("-40", "40-80"));
            e.handleSourceEvent(0, ended("-80", j, true));
            List<SplitsAssignment<VitessSplit>> seq = ctx.getSplitsAssignmentSequence();
            // reader 0 lost -80 (0 splits), reader 1 has 80- (1): -40 -> 0, then a tie -> 0
            assertThat(seq.get(seq.size() - 1).assignment())
                    .isEqualTo(Map.of(
                            0,
                            List.of(
                                    VitessSplit.startedByReshard(KS, "-40", pos("-40"), 1),
                                    VitessSplit.startedByReshard(KS, "40-80", pos("40-80"), 1))));
            assertThat(ctx.getSentSourceEvent().get(0)).containsExactly(new ShardEndedAck("customer/-80", 7));
            VitessEnumeratorState state = e.snapshotState(2);
            assertThat(state.assignedOwners())
                    .isEqualTo(Map.of("customer/-40", 0, "customer/40-80", 0, "customer/80-", 1));
            assertThat(state.pendingJournals()).isEmpty();
            assertThat(state.completedJournals()).containsExactly(j.completionKey());
        }
    }

    /**
     * Found by the chaos soak: Vitess gives a reshard repeated into the same shards (split, merged
     * back, split again) the journal id of the first. Taken for a repeat of the first, it was
     * acknowledged and dropped: the old shards' splits ended, no new one started, and the job read
     * nothing from then on while it looked healthy.
     */
    @Test
    void aReshardRepeatedIntoTheSameShardsWithTheSameJournalIdStartsItsNewShards() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            e.snapshotState(1);
            ReshardJournal first = journal(7, List.of("-80"), List.of("-40", "40-80"));
            e.handleSourceEvent(0, ended("-80", first, true));
            int afterFirst = ctx.getSplitsAssignmentSequence().size();
            // A repeat of the first (a reader restored its ended split): acknowledged, nothing new.
            e.handleSourceEvent(0, ended("-80", first, true));
            assertThat(ctx.getSplitsAssignmentSequence()).hasSize(afterFirst);

            // Merged back into -80, then split again into the same shards: Vitess gives the second
            // split the first one's id; its new shards start at new positions.
            ReshardJournal merge = journal(8, List.of("-40", "40-80"), List.of("-80"));
            e.handleSourceEvent(0, ended("-40", merge, true));
            e.handleSourceEvent(0, ended("40-80", merge, true));
            assertThat(assignedAfter(ctx, afterFirst))
                    .extracting(VitessSplit::splitId)
                    .containsExactly("customer/-80");
            int afterMerge = ctx.getSplitsAssignmentSequence().size();
            Map<String, Position> later = new LinkedHashMap<>();
            later.put("-40", RenderedPositions.start(KS, "-40", "-40@9"));
            later.put("40-80", RenderedPositions.start(KS, "40-80", "40-80@9"));
            ReshardJournal again = new ReshardJournal(7, KS, List.of("-80"), later);
            assertThat(again.completionKey()).isNotEqualTo(first.completionKey());
            e.handleSourceEvent(0, ended("-80", again, true));
            List<VitessSplit> started = assignedAfter(ctx, afterMerge);
            assertThat(started)
                    .as("the new shards of the repeated split, at its positions")
                    .extracting(VitessSplit::splitId, VitessSplit::position)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple("customer/-40", later.get("-40")),
                            org.assertj.core.groups.Tuple.tuple("customer/40-80", later.get("40-80")));
            assertThat(e.snapshotState(2).completedJournals())
                    .containsExactlyInAnyOrder(first.completionKey(), merge.completionKey(), again.completionKey());
        }
    }

    @Test
    void eachParticipantsCopyOfAJournalHasItsKeyWhateverItsOrder() {
        ReshardJournal a = journal(7, List.of("-40", "40-80"), List.of("-80", "80-"));
        ReshardJournal b = journal(7, List.of("40-80", "-40"), List.of("80-", "-80"));
        assertThat(b.completionKey()).isEqualTo(a.completionKey());
        assertThat(journal(7, List.of("-40", "40-80"), List.of("-80")).completionKey())
                .isNotEqualTo(a.completionKey());
        assertThat(journal(8, List.of("-40", "40-80"), List.of("-80", "80-")).completionKey())
                .isNotEqualTo(a.completionKey());
    }

    @Test
    void aJournalIdFromAnOlderStateStillMatchesItsRepeat() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(1)) {
            ReshardJournal j = journal(7, List.of("-80"), List.of("-40", "40-80"));
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx,
                    shards("-40", "40-80"),
                    KS,
                    Boundedness.CONTINUOUS_UNBOUNDED,
                    new VitessEnumeratorState(true, Map.of(), List.of(), List.of(), Set.of(7L)));
            e.start();
            register(ctx, e, 0);
            e.handleSourceEvent(0, ended("-80", j, true));
            assertThat(ctx.getSplitsAssignmentSequence()).isEmpty();
            assertThat(ctx.getSentSourceEvent().get(0)).containsExactly(new ShardEndedAck("customer/-80", 7));
        }
    }

    @Test
    void aMergesNewShardStartsOneEpochAboveItsHighestParticipantAndTheEpochSurvivesACheckpoint() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            e.snapshotState(1);
            ReshardJournal merge = journal(9, List.of("-80", "80-"), List.of("-"));
            // -80 was itself born in epoch 3, 80- in epoch 1: the merged shard is epoch 4
            e.handleSourceEvent(0, new ShardEndedEvent(KS, "-80", merge, true, 3));
            VitessEnumeratorState midway = e.snapshotState(2);
            assertThat(midway.pendingJournals()).singleElement().satisfies(p -> {
                assertThat(p.maxEndedEpoch()).isEqualTo(3);
                assertThat(p.waitingFor()).containsExactly("80-");
            });
            VitessEnumeratorStateSerializer serializer = new VitessEnumeratorStateSerializer();
            VitessEnumeratorState restored =
                    serializer.deserialize(serializer.getVersion(), serializer.serialize(midway));
            assertThat(restored).isEqualTo(midway);

            int before = ctx.getSplitsAssignmentSequence().size();
            VitessSourceEnumerator again = new VitessSourceEnumerator(
                    ctx, shards("-80", "80-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, restored);
            again.start();
            again.snapshotState(3);
            again.handleSourceEvent(1, new ShardEndedEvent(KS, "80-", merge, true, 1));
            assertThat(assignedAfter(ctx, before)).containsExactly(VitessSplit.startedByReshard(KS, "-", pos("-"), 4));
        }
    }

    /** A final position of {@code shard} whose capture of table t emitted keys up to {@code id}. */
    private static Position capturedUpTo(String shard, long id) {
        byte[] key = java.nio.ByteBuffer.allocate(9).put((byte) 1).putLong(id).array();
        return Position.fromSavedJson(
                KS,
                shard,
                "{\"keyspace\":\"customer\",\"shard\":\"" + shard + "\",\"gtid\":\"MySQL56/m:1-5\","
                        + "\"copy_completed\":true,\"snapshots\":[{\"table\":\"t\",\"after\":\""
                        + java.util.Base64.getEncoder().encodeToString(key) + "\",\"chunks\":3,\"rows\":30}]}");
    }

    @Test
    void theNewShardsGoOnWithTheCapturesTheirPredecessorsWereTakingAcrossACheckpoint() throws Throwable {
        ReshardJournal merge = journal(9, List.of("-80", "80-"), List.of("0"));
        byte[] checkpoint;
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            e.snapshotState(1);
            e.handleSourceEvent(0, new ShardEndedEvent(KS, "-80", merge, true, 0, capturedUpTo("-80", 900)));
            VitessEnumeratorStateSerializer serializer = new VitessEnumeratorStateSerializer();
            checkpoint = serializer.serialize(e.snapshotState(2));
        }
        VitessEnumeratorState restored = new VitessEnumeratorStateSerializer()
                .deserialize(VitessEnumeratorStateSerializer.CURRENT_VERSION, checkpoint);
        assertThat(restored.pendingJournals().get(0).endedPositions()).containsKey("-80");
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx,
                    () -> {
                        throw new AssertionError("must not rediscover");
                    },
                    KS,
                    Boundedness.CONTINUOUS_UNBOUNDED,
                    restored);
            e.start();
            register(ctx, e, 0);
            register(ctx, e, 1);
            e.snapshotState(3);
            e.handleSourceEvent(1, new ShardEndedEvent(KS, "80-", merge, true, 0, capturedUpTo("80-", 40)));
            VitessSplit merged = assignedAfter(ctx, 0).get(0);
            assertThat(merged.shard()).isEqualTo("0");
            // the merged shard goes on from the lower cursor (40), with the journal's GTID set
            String json = merged.position().toJson();
            String lower = java.util.Base64.getEncoder()
                    .encodeToString(java.nio.ByteBuffer.allocate(9)
                            .put((byte) 1)
                            .putLong(40)
                            .array());
            assertThat(json).contains("\"table\":\"t\"").contains("\"after\":\"" + lower + "\"");
            assertThat(merged.position().toJson())
                    .isEqualTo(
                            pos("0").withCapturesCarriedFrom(List.of(capturedUpTo("-80", 900), capturedUpTo("80-", 40)))
                                    .toJson());
        }
    }

    @Test
    void aSplitsNewShardsEachGoOnFromTheirPredecessorsCursor() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            e.snapshotState(1);
            ReshardJournal split = journal(7, List.of("-80"), List.of("-40", "40-80"));
            e.handleSourceEvent(0, new ShardEndedEvent(KS, "-80", split, true, 0, capturedUpTo("-80", 500)));
            List<VitessSplit> started = assignedAfter(ctx, 1);
            assertThat(started).extracting(VitessSplit::shard).containsExactly("-40", "40-80");
            String at500 = java.util.Base64.getEncoder()
                    .encodeToString(java.nio.ByteBuffer.allocate(9)
                            .put((byte) 1)
                            .putLong(500)
                            .array());
            for (VitessSplit s : started) {
                assertThat(s.position().toJson()).contains("\"after\":\"" + at500 + "\"");
            }
        }
    }

    @Test
    void newShardsGoToTheReadersWithTheFewestSplits() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(3)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx, shards("-80", "80-c0", "c0-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, null);
            e.start();
            for (int i = 0; i < 3; i++) {
                register(ctx, e, i);
            }
            ctx.runNextOneTimeCallable();
            int before = ctx.getSplitsAssignmentSequence().size();
            e.snapshotState(1);
            e.handleSourceEvent(0, ended("-80", journal(3, List.of("-80"), List.of("-20", "20-40", "40-80")), true));
            Map<Integer, List<String>> owners = new TreeMap<>();
            ctx.getSplitsAssignmentSequence()
                    .subList(before, ctx.getSplitsAssignmentSequence().size())
                    .forEach(a -> a.assignment()
                            .forEach((r, splits) ->
                                    splits.forEach(sp -> owners.computeIfAbsent(r, k -> new ArrayList<>())
                                            .add(sp.shard()))));
            // loads 0/1/1: -20 -> 0; then 1/1/1: 20-40 -> 0 (lowest id); then 2/1/1: 40-80 -> 1
            assertThat(owners).isEqualTo(Map.of(0, List.of("-20", "20-40"), 1, List.of("40-80")));
        }
    }

    @Test
    void newShardsOfARestoreWaitUntilEveryReaderRegistered() throws Throwable {
        // Flink hands a restored reader its splits (and so its report of an ended split) before
        // the reader registers: the new shards must not all go to the readers registered so far.
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator first = twoShards(ctx);
            VitessEnumeratorState checkpoint = first.snapshotState(1);
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx, shards("-80", "80-"), KS, Boundedness.CONTINUOUS_UNBOUNDED, checkpoint);
            e.start();
            ctx.unregisterReader(1);
            int before = ctx.getSplitsAssignmentSequence().size();
            ReshardJournal split = journal(11, List.of("-80", "80-"), List.of("-40", "40-80", "80-c0", "c0-"));
            e.handleSourceEvent(0, ended("-80", split, true));
            e.handleSourceEvent(1, ended("80-", split, true));
            assertThat(assignedAfter(ctx, before))
                    .as("reader 1 is not registered yet")
                    .isEmpty();
            register(ctx, e, 1);
            Map<Integer, List<String>> owners = new TreeMap<>();
            ctx.getSplitsAssignmentSequence()
                    .subList(before, ctx.getSplitsAssignmentSequence().size())
                    .forEach(a -> a.assignment()
                            .forEach((r, splits) ->
                                    splits.forEach(sp -> owners.computeIfAbsent(r, k -> new ArrayList<>())
                                            .add(sp.shard()))));
            assertThat(owners).isEqualTo(Map.of(0, List.of("-40", "80-c0"), 1, List.of("40-80", "c0-")));
        }
    }

    @Test
    void aMergeWaitsForEveryParticipant() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            e.snapshotState(1);
            int before = ctx.getSplitsAssignmentSequence().size();
            ReshardJournal j = journal(9, List.of("-80", "80-"), List.of("0"));
            e.handleSourceEvent(0, ended("-80", j, true));
            assertThat(ctx.getSplitsAssignmentSequence()).hasSize(before);
            VitessEnumeratorState mid = e.snapshotState(2);
            assertThat(mid.pendingJournals()).containsExactly(new PendingJournal(j, Set.of("-80")));
            assertThat(mid.assignedSplitIds()).containsExactly("customer/80-");
            // a repeat changes nothing
            e.handleSourceEvent(0, ended("-80", j, true));
            assertThat(ctx.getSplitsAssignmentSequence()).hasSize(before);
            e.handleSourceEvent(1, ended("80-", j, true));
            assertThat(assignedAfter(ctx, before)).containsExactly(VitessSplit.startedByReshard(KS, "0", pos("0"), 1));
            assertThat(ctx.getSentSourceEvent().get(1)).containsExactly(new ShardEndedAck("customer/80-", 9));
        }
    }

    @Test
    void tentativeReportsCountOnlyWhileNoCheckpointWasSeen() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            int before = ctx.getSplitsAssignmentSequence().size();
            ReshardJournal j = journal(9, List.of("-80", "80-"), List.of("0"));
            // checkpointing off (no checkpoint so far): the immediate report counts
            e.handleSourceEvent(0, ended("-80", j, false));
            assertThat(ctx.getSentSourceEvent().get(0)).containsExactly(new ShardEndedAck("customer/-80", 9));
            e.snapshotState(1);
            // from now on only durable reports count
            e.handleSourceEvent(1, ended("80-", j, false));
            assertThat(ctx.getSplitsAssignmentSequence()).hasSize(before);
            assertThat(ctx.getSentSourceEvent()).doesNotContainKey(1);
            e.handleSourceEvent(1, ended("80-", j, true));
            assertThat(assignedAfter(ctx, before))
                    .extracting(VitessSplit::shard)
                    .containsExactly("0");
        }
    }

    @Test
    void restoredMidReshardTheRemainingParticipantsCompleteTheJournal() throws Throwable {
        ReshardJournal j = journal(9, List.of("-80", "80-"), List.of("0"));
        byte[] checkpoint;
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            e.snapshotState(1);
            e.handleSourceEvent(0, ended("-80", j, true));
            VitessEnumeratorStateSerializer serializer = new VitessEnumeratorStateSerializer();
            checkpoint = serializer.serialize(e.snapshotState(2));
        }
        VitessEnumeratorState restored = new VitessEnumeratorStateSerializer()
                .deserialize(VitessEnumeratorStateSerializer.CURRENT_VERSION, checkpoint);
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = new VitessSourceEnumerator(
                    ctx,
                    () -> {
                        throw new AssertionError("must not rediscover");
                    },
                    KS,
                    Boundedness.CONTINUOUS_UNBOUNDED,
                    restored);
            e.start();
            register(ctx, e, 0);
            register(ctx, e, 1);
            assertThat(ctx.getSplitsAssignmentSequence()).isEmpty();
            // after a restore, a reader that still holds the ended -80 reports it again: no-op + ack
            e.handleSourceEvent(1, ended("-80", j, true));
            assertThat(ctx.getSplitsAssignmentSequence()).isEmpty();
            assertThat(ctx.getSentSourceEvent().get(1)).containsExactly(new ShardEndedAck("customer/-80", 9));
            // a tentative report after a restore does not count
            e.handleSourceEvent(0, ended("80-", j, false));
            assertThat(ctx.getSplitsAssignmentSequence()).isEmpty();
            e.handleSourceEvent(0, ended("80-", j, true));
            assertThat(assignedAfter(ctx, 0)).containsExactly(VitessSplit.startedByReshard(KS, "0", pos("0"), 1));
            // late repeats of a completed journal are acknowledged and start nothing
            e.handleSourceEvent(1, ended("80-", j, true));
            assertThat(ctx.getSplitsAssignmentSequence()).hasSize(1);
            assertThat(ctx.getSentSourceEvent().get(1)).endsWith(new ShardEndedAck("customer/80-", 9));
        }
    }

    @Test
    void aReportOfAShardOutsideItsJournalIsIgnored() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessSourceEnumerator e = twoShards(ctx);
            e.snapshotState(1);
            e.handleSourceEvent(1, ended("80-", journal(1, List.of("-80"), List.of("-40")), true));
            assertThat(e.snapshotState(2).pendingJournals()).isEmpty();
            assertThat(e.snapshotState(2).assignedSplitIds()).contains("customer/80-");
        }
    }

    @Test
    void boundedModeSignalsNoMoreSplitsOnlyWithoutJournalsInProgress() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            VitessEnumeratorState restored = new VitessEnumeratorState(
                    true,
                    Map.of("customer/80-", 1),
                    List.of(),
                    List.of(new PendingJournal(journal(9, List.of("-80", "80-"), List.of("0")), Set.of("-80"))),
                    Set.of());
            VitessSourceEnumerator e = new VitessSourceEnumerator(ctx, shards(), KS, Boundedness.BOUNDED, restored);
            e.start();
            register(ctx, e, 0);
            assertThat(ctx.hasNoMoreSplits(0)).isFalse();
        }
    }

    /**
     * A source of two keyspaces: discovery keys shards {@code keyspace/shard}; each shard is a split
     * of its keyspace, and a reshard of one keyspace starts new splits in that keyspace only.
     */
    @Test
    void twoKeyspacesGiveSplitsOfEachAndAReshardStaysInItsKeyspace() throws Throwable {
        try (MockSplitEnumeratorContext<VitessSplit> ctx = new MockSplitEnumeratorContext<>(2)) {
            ShardDiscovery both = () -> {
                Map<String, Position> m = new LinkedHashMap<>();
                m.put("customer/-80", RenderedPositions.start(KS, "-80", ""));
                m.put("customer/80-", RenderedPositions.start(KS, "80-", ""));
                m.put("commerce/0", RenderedPositions.start("commerce", "0", ""));
                return m;
            };
            VitessSourceEnumerator e =
                    new VitessSourceEnumerator(ctx, both, KS, Boundedness.CONTINUOUS_UNBOUNDED, null);
            e.start();
            register(ctx, e, 0);
            register(ctx, e, 1);
            ctx.runNextOneTimeCallable();
            List<VitessSplit> splits = assignedAfter(ctx, 0);
            assertThat(splits)
                    .extracting(VitessSplit::splitId)
                    .containsExactlyInAnyOrder("customer/-80", "customer/80-", "commerce/0");
            assertThat(splits)
                    .filteredOn(sp -> sp.splitId().equals("commerce/0"))
                    .extracting(VitessSplit::keyspace, VitessSplit::shard)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("commerce", "0"));
            Map<Integer, List<String>> owners = assignedIds(ctx);
            assertThat(owners.values()).allSatisfy(ids -> assertThat(ids).isNotEmpty());
            int commerceOwner = owners.entrySet().stream()
                    .filter(o -> o.getValue().contains("commerce/0"))
                    .findFirst()
                    .orElseThrow()
                    .getKey();
            e.snapshotState(1);
            Map<String, Position> started = new LinkedHashMap<>();
            started.put("-80", RenderedPositions.start("commerce", "-80", "-80@0"));
            started.put("80-", RenderedPositions.start("commerce", "80-", "80-@0"));
            ReshardJournal commerceSplit = new ReshardJournal(11, "commerce", List.of("0"), started);
            int before = ctx.getSplitsAssignmentSequence().size();
            // reported by the customer keyspace's shard of the same name: not a participant
            e.handleSourceEvent(commerceOwner, new ShardEndedEvent(KS, "0", commerceSplit, true, 0));
            assertThat(ctx.getSplitsAssignmentSequence()).hasSize(before);
            e.handleSourceEvent(commerceOwner, new ShardEndedEvent("commerce", "0", commerceSplit, true, 0));
            assertThat(assignedAfter(ctx, before))
                    .extracting(VitessSplit::splitId)
                    .containsExactlyInAnyOrder("commerce/-80", "commerce/80-");
            assertThat(assignedAfter(ctx, before))
                    .allSatisfy(sp -> assertThat(sp.keyspace()).isEqualTo("commerce"));
            assertThat(e.snapshotState(2).assignedOwners())
                    .containsOnlyKeys("customer/-80", "customer/80-", "commerce/-80", "commerce/80-");
        }
    }

    private static void register(MockSplitEnumeratorContext<VitessSplit> ctx, VitessSourceEnumerator e, int id) {
        ctx.registerReader(new ReaderInfo(id, "localhost"));
        e.addReader(id);
    }
}
