/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * The multi-process local Vitess of tests/vitess/cluster (up.sh) as the Flink tests see it: its
 * addresses from the variables tests/vitess/cluster/env.sh exports (the test fails, never skips,
 * naming the fix when they are missing), and its operator scripts (reshard.sh, fault.sh), run
 * with this JVM's environment, so they act on the same cluster (VT_CLUSTER_BASE_PORT,
 * VT_CLUSTER_RUN).
 */
public final class MultiProcessCluster {

    private MultiProcessCluster() {}

    /** A variable tests/vitess/cluster/env.sh exports; fails (never skips) with the fix when missing. */
    public static String env(String name) {
        String v = System.getenv(name);
        if (v == null || v.isEmpty()) {
            fail(name + " is not set: this test needs the multi-process local Vitess. Start it with "
                    + "bash tests/vitess/cluster/up.sh && source tests/vitess/cluster/env.sh "
                    + "(installs with tests/vitess/cluster/install.sh)");
        }
        return v;
    }

    /** The plaintext VTGate's gRPC address (the one fault.sh restart-vtgate kills). */
    public static String grpcAddress() {
        return env("VT_CLUSTER_GRPC_ADDR");
    }

    /**
     * The TLS VTGate's plaintext MySQL port: a gate that stays up while the plaintext one is
     * killed, for writers and for reading what Vitess holds (queries in OLAP: whole tables).
     */
    public static SqlEndpoint sql() {
        return new SqlEndpoint("127.0.0.1", Integer.parseInt(env("VT_CLUSTER_TLS_MYSQL_PORT")), true);
    }

    /**
     * Runs tests/vitess/cluster/SCRIPT with the arguments, echoing its output with a prefix;
     * fails with the output when it exits non-zero or runs longer than {@code timeout} (one of
     * {@link TestTimeouts}).
     */
    public static void script(Duration timeout, String script, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add("bash");
        command.add(new File(clusterDir(), script).getPath());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        Thread pump = new Thread(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    System.out.println("  | " + line);
                    synchronized (out) {
                        out.append(line).append('\n');
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        pump.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", command) + " did not finish in " + timeout);
        }
        pump.join(5_000);
        if (p.exitValue() != 0) {
            synchronized (out) {
                fail(String.join(" ", command) + " failed (exit " + p.exitValue() + "):\n" + out);
            }
        }
    }

    /**
     * The customer keyspace back to its two shards, -80 and 80-, whatever an earlier run that
     * failed mid-way left (a workflow not switched, one not completed, four shards): {@code
     * reshard.sh restore}, a few topology reads on a cluster that needs nothing. A test that
     * reshards starts with it, so that one failed run does not fail the next ones.
     */
    public static void restoreTwoCustomerShards() throws Exception {
        script(TestTimeouts.RESHARD_SCRIPT, "reshard.sh", "restore", "customer", "-80,80-");
    }

    /** tests/vitess/cluster of this checkout: found from the working directory upwards. */
    private static File clusterDir() {
        for (File d = new File("").getAbsoluteFile(); d != null; d = d.getParentFile()) {
            File candidate = new File(d, "tests/vitess/cluster");
            if (new File(candidate, "fault.sh").isFile()) {
                return candidate;
            }
        }
        throw new IllegalStateException("tests/vitess/cluster not found above " + new File("").getAbsolutePath());
    }
}
