/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.sql;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Flink session cluster as two separate JVM processes — a JobManager
 * ({@code StandaloneSessionClusterEntrypoint}) and a TaskManager ({@code TaskManagerRunner}) —
 * started the way {@code bin/start-cluster.sh} does, with a generated {@code config.yaml} and a
 * classpath of Flink's own jars only. Each process writes its log and its stdout/stderr into
 * {@code dir}. {@link #close()} ends both processes by their handles.
 */
final class FlinkSessionCluster implements AutoCloseable {

    /** Flink's default {@code env.java.opts.all} for Java 17 (module access Flink needs). */
    private static final List<String> JAVA_17_OPTS = List.of(
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    private static final Pattern TASK_MANAGERS = Pattern.compile("\"taskmanagers\"\\s*:\\s*(\\d+)");
    private static final Pattern SLOTS = Pattern.compile("\"slots-total\"\\s*:\\s*(\\d+)");

    private final Path dir;
    private final int restPort;
    private final List<Process> processes = new ArrayList<>();
    private final List<String> names = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::killAll, "flink-session-cluster-kill");
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(SqlJarTestTimeouts.REST_CONNECT)
            .build();

    private FlinkSessionCluster(Path dir, int restPort) {
        this.dir = dir;
        this.restPort = restPort;
    }

    /**
     * Starts a JobManager and a TaskManager with {@code slots} slots and waits until the
     * TaskManager registered (fails with the processes' log tails otherwise).
     */
    static FlinkSessionCluster start(Path dir, String classpath, int slots, Duration timeout) throws Exception {
        Files.createDirectories(dir);
        for (String process : List.of("jobmanager", "taskmanager")) {
            Files.deleteIfExists(dir.resolve(process + ".log"));
            Files.deleteIfExists(dir.resolve(process + ".out"));
        }
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        int rpcPort = freePort();
        int restPort = freePort();
        String config = String.join(
                "\n",
                "jobmanager.rpc.address: 127.0.0.1",
                "jobmanager.rpc.port: " + rpcPort,
                "jobmanager.bind-host: 127.0.0.1",
                "jobmanager.memory.process.size: 1024m",
                "taskmanager.host: 127.0.0.1",
                "taskmanager.bind-host: 127.0.0.1",
                "taskmanager.rpc.port: 0",
                "taskmanager.data.port: 0",
                "taskmanager.numberOfTaskSlots: " + slots,
                "taskmanager.memory.process.size: 1280m",
                "taskmanager.memory.managed.size: 32m",
                "taskmanager.memory.network.min: 32m",
                "taskmanager.memory.network.max: 32m",
                "rest.address: 127.0.0.1",
                "rest.bind-address: 127.0.0.1",
                "rest.port: " + restPort,
                "blob.server.port: 0",
                "io.tmp.dirs: " + tmp,
                "web.tmpdir: " + tmp,
                "parallelism.default: 1",
                "restart-strategy.type: none",
                "");
        Files.writeString(conf.resolve("config.yaml"), config);
        Files.writeString(
                conf.resolve("log4j.properties"),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = MainAppender",
                        "logger.pekko.name = org.apache.pekko",
                        "logger.pekko.level = WARN",
                        "appender.main.name = MainAppender",
                        "appender.main.type = File",
                        "appender.main.fileName = ${sys:log.file}",
                        "appender.main.append = true",
                        "appender.main.layout.type = PatternLayout",
                        "appender.main.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-60c [%t] %m%n",
                        ""));

        FlinkSessionCluster cluster = new FlinkSessionCluster(dir, restPort);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.launch(
                    "jobmanager",
                    "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                    classpath,
                    conf,
                    resourceParams("GET_JM_RESOURCE_PARAMS", classpath, conf));
            cluster.launch(
                    "taskmanager",
                    "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                    classpath,
                    conf,
                    resourceParams("GET_TM_RESOURCE_PARAMS", classpath, conf));
            cluster.awaitSlots(slots, timeout);
        } catch (Throwable t) {
            cluster.close();
            throw t;
        }
        return cluster;
    }

    int restPort() {
        return restPort;
    }

    List<Process> processes() {
        return List.copyOf(processes);
    }

    /** GET of a REST path ({@code /overview}, {@code /jobs/overview}, ...) as text. */
    String rest(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                .timeout(SqlJarTestTimeouts.REST_CALL)
                .GET()
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /**
     * What {@code bin/jobmanager.sh} / {@code bin/taskmanager.sh} compute before starting a process:
     * {@code BashJavaUtils} turns the memory configuration into JVM flags (first line) and
     * {@code -D key=value} dynamic properties (second line) — a TaskManager refuses to start
     * without the latter.
     */
    private static List<List<String>> resourceParams(String command, String classpath, Path conf)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(
                        java(),
                        "-classpath",
                        classpath,
                        "org.apache.flink.runtime.util.bash.BashJavaUtils",
                        command,
                        "--configDir",
                        conf.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(SqlJarTestTimeouts.HELPER_PROCESS.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("BashJavaUtils " + command + " failed:\n" + output);
        }
        List<List<String>> results = new ArrayList<>();
        for (String line : output.split("\\R")) {
            if (line.startsWith("BASH_JAVA_UTILS_EXEC_RESULT:")) {
                String value =
                        line.substring("BASH_JAVA_UTILS_EXEC_RESULT:".length()).strip();
                results.add(value.isEmpty() ? List.of() : List.of(value.split("\\s+")));
            }
        }
        if (results.size() < 2) {
            throw new IllegalStateException("BashJavaUtils " + command + " printed no parameters:\n" + output);
        }
        return results;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private void launch(String name, String mainClass, String classpath, Path conf, List<List<String>> params)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(params.get(0));
        command.addAll(JAVA_17_OPTS);
        command.add("-Dlog.file=" + dir.resolve(name + ".log"));
        command.add(
                "-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        command.add("-classpath");
        command.add(classpath);
        command.add(mainClass);
        command.add("--configDir");
        command.add(conf.toString());
        command.addAll(params.get(1));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".out").toFile());
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        processes.add(builder.start());
        names.add(name);
    }

    private void awaitSlots(int slots, Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no answer yet";
        while (Instant.now().isBefore(deadline)) {
            for (int i = 0; i < processes.size(); i++) {
                if (!processes.get(i).isAlive()) {
                    throw new IllegalStateException("The " + names.get(i) + " process exited with code "
                            + processes.get(i).exitValue() + " while the cluster was starting\n" + diagnostics());
                }
            }
            try {
                last = rest("/overview");
                Matcher tms = TASK_MANAGERS.matcher(last);
                Matcher total = SLOTS.matcher(last);
                if (tms.find()
                        && total.find()
                        && Integer.parseInt(tms.group(1)) >= 1
                        && Integer.parseInt(total.group(1)) >= slots) {
                    return;
                }
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("The Flink cluster did not offer " + slots + " slots within " + timeout
                + " (last /overview: " + last + ")\n" + diagnostics());
    }

    /** The last lines of every process's log and output, for failure messages. */
    String diagnostics() {
        StringBuilder out = new StringBuilder();
        for (String name : names) {
            for (String file : List.of(name + ".log", name + ".out")) {
                out.append("---- ")
                        .append(dir.resolve(file))
                        .append(" (tail) ----\n")
                        .append(tail(dir.resolve(file), 40));
            }
        }
        return out.toString();
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())) + "\n";
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")\n";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    /** Stops the TaskManager, then the JobManager: SIGTERM, then SIGKILL if it outlives {@link SqlJarTestTimeouts#PROCESS_EXIT}. */
    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            Process p = processes.get(i);
            p.destroy();
            try {
                if (!p.waitFor(SqlJarTestTimeouts.PROCESS_EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly().waitFor(SqlJarTestTimeouts.PROCESS_KILLED.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to
        }
    }

    private void killAll() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
    }
}
