package io.vitesscdc.source.testutils;

import org.junit.jupiter.api.AfterEach;

import java.time.Duration;

/**
 * {@link VitessITBase} for tests on {@code customer.customer}: each test writes only its own id
 * range ({@link CustomerWriter}), seen on both sides through {@link RangeView}.
 */
public abstract class CustomerRangeITBase extends VitessITBase {

    protected final CustomerWriter writer = new CustomerWriter();
    protected final RangeView range = new RangeView(runId, writer);

    protected CustomerRangeITBase(String runIdPrefix) {
        super(runIdPrefix);
    }

    /** Stops the writer and deletes its id range (before the base drops the run's state). */
    @AfterEach
    void closeWriter() throws Exception {
        writer.close();
    }

    protected void awaitEqualToVitess(Duration timeout) throws Exception {
        range.awaitEqualToVitess(timeout, "materialized state vs SELECT * through VTGate");
    }
}
