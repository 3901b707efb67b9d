/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The parts of the benchmark that compute figures, without a server. */
class BenchFiguresTest {

    @Test
    void threadStatLinesSumPerNameWithoutDigits() {
        Map<String, Double> byName = new TreeMap<>();
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
        ProcessStats.parseThreadStat("12 (C2 CompilerThre) S 1 1 1 0 -1 0 0 0 0 0 150 50 0 0", byName);
        ProcessStats.parseThreadStat("13 (C1 CompilerThre) S 1 1 1 0 -1 0 0 0 0 0 10 0 0 0", byName);
        ProcessStats.parseThreadStat("14 (tokio (w) 2) R 1 1 1 0 -1 0 0 0 0 0 7 3 0 0", byName);
        assertThat(byName).containsEntry("C CompilerThre", 2.1).containsEntry("tokio (w)", 0.1);
    }

    @Test
    void machineBusySecondsLeaveIdleAndIowaitOut() {
        // cpu user nice system idle iowait irq softirq steal guest guest_nice
        assertThat(ProcessStats.busySecondsOfCpuLine("cpu  1000 20 300 90000 400 5 6 7 0 0"))
                .isEqualTo(13.38);
    }

    @Test
    void recorderCountsAndReportsLatencyPercentiles() throws Exception {
        Recorder rec = new Recorder("sql", "copy", "t");
        assertThat(rec.secondsSinceFirst()).isEqualTo(-1);
        rec.observeTotal(5);
        rec.observeTotal(3); // a counter never goes back: ignored
        rec.record(2);
        assertThat(rec.events()).isEqualTo(7);
        long now = System.currentTimeMillis() * 1000;
        for (int i = 1; i <= 100; i++) {
            rec.latency(now - i * 1000L); // i ms ago
        }
        assertThat(rec.latencyPercentileMs(0.5)).isBetween(50.0, 60.0);
        assertThat(rec.latencyPercentileMs(0.99)).isBetween(99.0, 110.0);
        String json = rec.json();
        assertThat(json)
                .startsWith("{\"consumer\":\"sql\",\"scenario\":\"copy\"")
                .contains("\"events\":7,");
        assertThat(json).contains("\"latency_samples\":100,").contains("\"threads_cpu_s\":{");
        assertThat(new Recorder("x", "y", "z").latencyPercentileMs(0.5)).isNull();
    }

    @Test
    void theStampIsFoundInJsonChangeEvents() {
        assertThat(Recorder.stampOf(
                        "{\"before\":null,\"after\":{\"id\":1,\"stamp_us\":1764000000123456},\"op\":\"c\"}"))
                .isEqualTo(1764000000123456L);
        assertThat(Recorder.stampOf("{\"after\":{\"id\":1}}")).isEqualTo(-1);
        assertThat(Recorder.stampOf("{\"after\":{\"stamp_us\":null}}")).isEqualTo(-1);
    }

    @Test
    void positionsBecomeDebeziumsShardsAndVgtid() throws Exception {
        Properties p = new Properties();
        DebeziumConsumer.setVgtid(
                p,
                "{\"shards\":[{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":\"MySQL56/a:1-5\","
                        + "\"marks\":3},{\"keyspace\":\"customer\",\"shard\":\"80-\",\"gtid\":\"MySQL56/a:1-6\"}]}");
        assertThat(p.getProperty("vitess.shard")).isEqualTo("-80,80-");
        assertThat(p.getProperty("vitess.vgtid"))
                .isEqualTo("[{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":\"MySQL56/a:1-5\"},"
                        + "{\"keyspace\":\"customer\",\"shard\":\"80-\",\"gtid\":\"MySQL56/a:1-6\"}]");
        assertThatThrownBy(() -> DebeziumConsumer.setVgtid(new Properties(), "{\"shards\":[]}"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void argumentsNeedAnEndAndKnownShapes() {
        assertThatThrownBy(() -> new BenchArgs(new String[] {"--consumer", "sql", "--table", "t"}))
                .hasMessageContaining("--events");
        BenchArgs a = new BenchArgs(new String[] {"--consumer", "sql", "--table", "t", "--window", "5"});
        assertThat(a.latencyMode()).isTrue();
        assertThat(a.positionsJson()).isNull();
        assertThat(BenchTables.columns("wide")).endsWith("stamp_us BIGINT");
        assertThatThrownBy(() -> BenchTables.columns("round")).isInstanceOf(IllegalArgumentException.class);
    }
}
