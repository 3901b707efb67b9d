package io.vitesscdc.source.testutils;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.dispatcher.UnavailableDispatcherOperationException;
import org.apache.flink.util.ExceptionUtils;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Stop-with-savepoint for tests whose jobs may still be deploying when the test wants to stop. */
public final class Savepoints {

    private Savepoints() {}

    /**
     * Stops {@code job} with a canonical savepoint into {@code dir} and returns its path. Flink
     * refuses a savepoint while the job master is still initializing or a task is still being
     * deployed or restored ("not all required tasks are currently running"), which on a loaded
     * machine lasts seconds after a job is submitted or restored; those refusals are retried for
     * up to a minute, any other failure is thrown at once.
     */
    public static String stopWithSavepoint(JobClient job, Path dir) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return job.stopWithSavepoint(false, dir.toString(), SavepointFormatType.CANONICAL)
                        .get(2, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                if (!notAllTasksRunning(e) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static boolean notAllTasksRunning(Throwable t) {
        return ExceptionUtils.findThrowable(t, UnavailableDispatcherOperationException.class).isPresent()
                || ExceptionUtils.findThrowableWithMessage(t, "not all required tasks are currently running").isPresent()
                || ExceptionUtils.findThrowableWithMessage(t, "Not all required tasks are currently running")
                        .isPresent()
                || ExceptionUtils.findThrowableWithMessage(t, "is not being executed at the moment").isPresent();
    }
}
