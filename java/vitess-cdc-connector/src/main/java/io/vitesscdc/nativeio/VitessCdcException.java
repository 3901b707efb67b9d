package io.vitesscdc.nativeio;

/**
 * Base of every error the connector raises from its native core.
 *
 * <p>Unchecked, because Flink's source interfaces do not declare checked exceptions and because
 * callers decide by subclass what to do: {@link ConfigurationException} (fix the job),
 * {@link RetryableException} (the core already retried; restarting the job may help) and
 * {@link FatalException} (anything else). The message is the Rust error's full message; the
 * Rust cause chain, when there is one, hangs below as {@link NativeCause}s.
 */
public class VitessCdcException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public VitessCdcException(String message) {
        super(message);
    }

    public VitessCdcException(String message, Throwable cause) {
        super(message, cause);
    }
}
