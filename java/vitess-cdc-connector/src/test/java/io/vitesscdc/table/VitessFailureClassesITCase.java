/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.BadRecordHandling;
import io.vitesscdc.source.VitessSource;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;
import io.vitesscdc.source.testutils.ExceptionHistory;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.SqlJobs;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every failure of a record is classed, end to end against the real Vitess, with a restart
 * strategy that would restart the job three times: a record that cannot be read stops the job
 * once, without a restart (a restart would meet the same record again), naming the table, the key
 * and the position; with {@code 'scan.bad-record.handling' = 'skip'} the record is left out and the
 * job goes on. Restarts are counted in the job's exception history (Flink's REST API), which holds
 * one entry per failure.
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessFailureClassesITCase extends VitessITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(2);

    private static final int ROWS = 20;
    /** The row whose value does not fit a TINYINT and that the throwing deserializer refuses. */
    private static final long BAD_ID = 13;

    /** How often each run's deserializer met the bad row, across restarts. */
    private static final Map<String, AtomicInteger> BAD_ROW_SEEN = new ConcurrentHashMap<>();

    VitessFailureClassesITCase() {
        super("classes");
    }

    @BeforeEach
    void rows() throws Exception {
        VitessCluster.execute("customer", "DELETE FROM bad_records");
        StringBuilder values = new StringBuilder();
        for (long id = 1; id <= ROWS; id++) {
            values.append(id == 1 ? "" : ", ")
                    .append('(')
                    .append(id)
                    .append(", ")
                    .append(id == BAD_ID ? 1000 : id)
                    .append(')');
        }
        VitessCluster.execute("customer", "INSERT INTO bad_records (id, val) VALUES " + values);
    }

    @Test
    void aValueThatDoesNotFitItsTypeStopsTheJobOnceNamingTheRecord() throws Exception {
        JobClient job = sqlJob("");
        String failure = awaitFailed(job);
        assertThat(failure)
                .contains("cannot read the +I record of customer/")
                .contains("table bad_records, key (id=" + BAD_ID + ")")
                .contains("position {")
                .contains("cannot read column 'val' declared as TINYINT")
                .contains("'scan.bad-record.handling' = 'skip'");
        assertThat(ExceptionHistory.failures(MINI_CLUSTER, job.getJobID()))
                .as("failures in the job's exception history: no restart")
                .isEqualTo(1);
    }

    @Test
    void withSkipTheBadValueIsLeftOutAndTheJobGoesOn() throws Exception {
        JobClient job = sqlJob(", 'scan.bad-record.handling' = 'skip'");
        try {
            Map<String, Map<String, String>> expected = new TreeMap<>();
            for (long id = 1; id <= ROWS + 1; id++) {
                if (id != BAD_ID) {
                    expected.put(String.valueOf(id), Map.of("id", String.valueOf(id), "val", String.valueOf(id)));
                }
            }
            // A row written after the bad one, through the log: the job reads on past it.
            VitessCluster.execute(
                    "customer", "INSERT INTO bad_records VALUES (" + (ROWS + 1) + ", " + (ROWS + 1) + ")");
            waitUntil(
                    TestTimeouts.CONVERGE,
                    () -> MaterializedTables.get(runId).rows().equals(expected),
                    () -> "every row but the bad one; have "
                            + MaterializedTables.get(runId).rows().keySet());
            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            assertThat(ExceptionHistory.failures(MINI_CLUSTER, job.getJobID()))
                    .as("failures in the job's exception history")
                    .isZero();
        } finally {
            job.cancel().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void aDeserializerThatThrowsStopsTheJobOnceWithoutRestarts() throws Exception {
        BAD_ROW_SEEN.put(runId, new AtomicInteger());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        restartThreeTimes(env);
        env.fromSource(source(BadRecordHandling.FAIL), WatermarkStrategy.noWatermarks(), "vitess")
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("vitess-bad-record");
        String failure = awaitFailed(job);
        assertThat(failure)
                .contains("table bad_records, key (id=" + BAD_ID + ")")
                .contains("the deserializer refuses row " + BAD_ID);
        assertThat(ExceptionHistory.failures(MINI_CLUSTER, job.getJobID()))
                .as("failures in the job's exception history: no restart")
                .isEqualTo(1);
        assertThat(BAD_ROW_SEEN.get(runId).get())
                .as("times the bad row was met")
                .isEqualTo(1);
    }

    // ---------------------------------------------------------------------------------------------

    private JobClient sqlJob(String extraOptions) {
        TableEnvironment tEnv = SqlJobs.tableEnv(2);
        tEnv.getConfig().set("restart-strategy.type", "fixed-delay");
        tEnv.getConfig().set("restart-strategy.fixed-delay.attempts", "3");
        tEnv.getConfig().set("restart-strategy.fixed-delay.delay", "200 ms");
        tEnv.executeSql("CREATE TABLE src (id BIGINT, val TINYINT, PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with("bad_records", ", 'changelog-mode' = 'upsert'" + extraOptions));
        tEnv.executeSql(
                "CREATE TABLE snk (id BIGINT, val TINYINT, PRIMARY KEY (id) NOT ENFORCED)" + SqlJobs.upsertSink(runId));
        return SqlJobs.executeAll(tEnv, "INSERT INTO snk SELECT * FROM src");
    }

    private VitessSource<String> source(BadRecordHandling handling) {
        String run = runId;
        return VitessSource.<String>builder()
                .address(VitessCluster.grpcAddress())
                .keyspace("customer")
                .tables("bad_records")
                .badRecordHandling(handling)
                .deserializer(new RefusesTheBadRow(run))
                .build();
    }

    /** Converts a row to its id and throws for the bad row, counting how often it met it. */
    private static final class RefusesTheBadRow implements VitessDeserializationSchema<String> {
        private static final long serialVersionUID = 1L;
        private final String run;

        RefusesTheBadRow(String run) {
            this.run = run;
        }

        @Override
        public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) {
            long id = record.getLong("id");
            if (id == BAD_ID) {
                BAD_ROW_SEEN.get(run).incrementAndGet();
                throw new IllegalStateException("the deserializer refuses row " + id);
            }
            out.collect(String.valueOf(id));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    private static void restartThreeTimes(StreamExecutionEnvironment env) {
        Configuration restart = new Configuration();
        restart.setString("restart-strategy.type", "fixed-delay");
        restart.setString("restart-strategy.fixed-delay.attempts", "3");
        restart.setString("restart-strategy.fixed-delay.delay", "200 ms");
        env.configure(restart);
    }

    /** Waits for the job to fail and returns the messages of its failure's cause chain. */
    private static String awaitFailed(JobClient job) throws Exception {
        try {
            job.getJobExecutionResult().get(TestTimeouts.PROGRESS.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return rootMessages(e);
        }
        throw new AssertionError("the job ended without failing");
    }
}
