/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.CustomerWriter;
import io.vitesscdc.source.testutils.ExceptionHistory;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.SqlJobs;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL connector with the PlanetScale settings of docs/tls.md ("PlanetScale"), through a front
 * that lets in what PlanetScale's edge lets in — TLS only, per-call HTTP Basic credentials, its own
 * cell name — and forwards to the real local VTGate ({@code basic-auth-front} of {@code
 * rust/testkit}, a child process). The documented settings stream, equal to Vitess; a wrong
 * password, Vitess's static auth, no TLS and a wrong cell each stop the job once (no restart
 * loop, although the job may restart three times) or fail its planning, with the message
 * docs/tls.md shows.
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessPlanetScaleITCase extends VitessITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    private static final String USER = "cdc-reader";
    private static final String PASSWORD = "pscale_pw_s3cr3t";
    private static final String CELL = "planetscale_operator_default";

    private final CustomerWriter writer = new CustomerWriter();
    private Process front;
    private String address;
    private String caPath;

    VitessPlanetScaleITCase() {
        super("planetscale");
    }

    @BeforeEach
    void startFront(@TempDir Path dir) throws Exception {
        String bin = System.getProperty("vitesscdc.basic.auth.front", "");
        assertThat(bin)
                .as("system property vitesscdc.basic.auth.front: the basic-auth-front binary (the Maven build "
                        + "makes it: cargo build -p vitess-cdc-testkit --bin basic-auth-front)")
                .isNotEmpty();
        assertThat(new File(bin)).as("the basic-auth-front binary").exists();
        front = new ProcessBuilder(
                        bin,
                        "--upstream",
                        VitessCluster.grpcAddress(),
                        "--dir",
                        dir.toString(),
                        "--user",
                        USER,
                        "--password",
                        PASSWORD,
                        "--cell",
                        CELL,
                        // vttestserver's one cell, which the front's stands for
                        "--upstream-cell",
                        "test")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(front.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("basic-auth-front's first line").startsWith("listening on ");
        address = line.substring("listening on ".length()).trim();
        caPath = dir.resolve("ca.pem").toString();
    }

    @AfterEach
    void stopFront() throws Exception {
        writer.close();
        if (front != null) {
            front.getOutputStream().close(); // it exits when stdin closes
            if (!front.waitFor(TestTimeouts.PROCESS_EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                front.destroyForcibly();
            }
        }
    }

    @Test
    void theDocumentedSettingsStreamThroughABasicAuthTlsFrontEqualToVitess() throws Exception {
        writer.insertRows(100);
        JobClient job = job(settings(PASSWORD, "basic", true, CELL), false);
        try {
            writer.start(50);
            long ops = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= ops + 60, "writes while streaming");
            writer.stop();
            Map<String, Map<String, String>> expected = VitessCluster.query(
                    "customer",
                    "SELECT customer_id, email, name, visits FROM customer WHERE " + writer.rangePredicate(),
                    "customer_id");
            awaitEqual(expected, this::materialized, TestTimeouts.CONVERGE, "materialized through the front");
        } finally {
            VitessITBase.cancel(job);
        }
    }

    @Test
    void aWrongPasswordStopsTheJobOnceNamingCredentialsAndAuthMode() throws Exception {
        assertFailsOnce(
                settings("not-the-password", "basic", true, CELL),
                "rejected the credentials",
                "invalid credentials",
                "auth mode");
    }

    @Test
    void vitessStaticAuthAgainstTheFrontPointsToAuthModeBasic() throws Exception {
        assertFailsOnce(
                settings(PASSWORD, "static", true, CELL),
                "requires credentials",
                "an Authorization header is required",
                "with auth mode basic for PlanetScale");
    }

    @Test
    void basicAuthWithoutTlsIsRefusedBeforeThePasswordIsSent() throws Exception {
        assertFailsOnce(
                settings(PASSWORD, "basic", false, CELL),
                "auth mode basic sends the password with every call: turn TLS on");
    }

    @Test
    void aCellTheFrontDoesNotServeIsNamedWithItsFix() throws Exception {
        assertFailsOnce(
                settings(PASSWORD, "basic", true, "planetscale_wrong_cell"),
                "does not serve the cells asked for",
                "planetscale_wrong_cell",
                "set the cells option to the cell it serves");
    }

    /** The docs' PlanetScale settings, with the front's CA instead of the web PKI roots. */
    private String settings(String password, String authMode, boolean tls, String cells) {
        return " WITH ('connector' = 'vitess-cdc', 'vtgate.address' = '" + address + "'"
                + (tls ? ", 'tls.ca-cert' = '" + caPath + "', 'tls.server-name' = 'localhost'" : "")
                + ", 'username' = '" + USER + "', 'password' = '" + password + "'"
                + ", 'auth-mode' = '" + authMode + "'"
                + ", 'cells' = '" + cells + "', 'tablet-type' = 'primary'"
                + ", 'keyspace' = 'customer', 'table-name' = 'customer'"
                + ", 'connect.timeout' = '5 s', 'retry.max-attempts' = '2')";
    }

    private JobClient job(String with, boolean restartThreeTimes) {
        TableEnvironment tEnv = SqlJobs.tableEnv(2);
        if (restartThreeTimes) {
            tEnv.getConfig().set("restart-strategy.type", "fixed-delay");
            tEnv.getConfig().set("restart-strategy.fixed-delay.attempts", "3");
            tEnv.getConfig().set("restart-strategy.fixed-delay.delay", "200 ms");
        }
        tEnv.executeSql("CREATE TABLE src (customer_id BIGINT, email STRING, name STRING, visits INT,"
                + " PRIMARY KEY (customer_id) NOT ENFORCED)" + with);
        tEnv.executeSql("CREATE TABLE snk (customer_id BIGINT, email STRING, name STRING, visits INT,"
                + " PRIMARY KEY (customer_id) NOT ENFORCED)" + SqlJobs.upsertSink(runId));
        return SqlJobs.executeAll(
                tEnv,
                "INSERT INTO snk SELECT * FROM src WHERE customer_id >= " + writer.base() + " AND customer_id < "
                        + (writer.base() + CustomerWriter.RANGE));
    }

    /**
     * The job fails its planning, or fails once as a configuration error although it may restart
     * three times; either way the user sees {@code needles}.
     */
    private void assertFailsOnce(String with, String... needles) throws Exception {
        JobClient job;
        try {
            job = job(with, true);
        } catch (RuntimeException planning) {
            assertThat(rootMessages(planning)).contains(needles);
            return;
        }
        String failure;
        try {
            job.getJobExecutionResult().get(TestTimeouts.PROGRESS.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("the job ended without failing");
        } catch (ExecutionException e) {
            failure = rootMessages(e);
        }
        assertThat(failure).contains(needles);
        assertThat(ExceptionHistory.failures(MINI_CLUSTER, job.getJobID()))
                .as("failures in the job's exception history: a configuration error does not restart")
                .isEqualTo(1);
    }

    private Map<String, Map<String, String>> materialized() {
        Map<String, Map<String, String>> out = new TreeMap<>();
        MaterializedTables.get(runId).rows().forEach((k, v) -> {
            if (writer.inRange(Long.parseLong(k))) {
                out.put(k, v);
            }
        });
        return out;
    }
}
