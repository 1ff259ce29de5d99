package dev.sketches;

/**
 * A call into the native library failed: carries the C status number (one of the {@link Status}
 * constants) and its text ({@code sketch_status_str}).
 *
 * <p>Thrown for what the native library refuses: damaged or foreign bytes given to {@code
 * fromByteArray} or {@code wrap} (for example {@link Status#CHECKSUM_MISMATCH}), sketches that
 * cannot be merged ({@link Status#INCOMPATIBLE}), a key longer than a Top-k sketch stores ({@link
 * Status#KEY_TOO_LONG}), parameters out of range ({@link Status#INVALID_PARAMETER}). Arguments
 * that are wrong before the native library is reached (null, negative counts, index ranges)
 * throw {@link IllegalArgumentException}, {@link NullPointerException} or {@link
 * IndexOutOfBoundsException} instead. When a call throws, the sketch is unchanged.
 */
public class SketchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The status number. */
    private final int status;

    /**
     * Creates the exception for a failed native call.
     *
     * @param status the C status number (not {@link Status#OK})
     * @param operation the native function that failed, for the message
     */
    public SketchException(int status, String operation) {
        super(operation + ": " + Status.text(status) + " (status " + status + ")");
        this.status = status;
    }

    /**
     * The same refusal with {@code detail} appended to the message (its cause: {@code refused}).
     *
     * @param refused the exception of the native call
     * @param detail what the binding adds (for example the parameters that differ)
     */
    SketchException(SketchException refused, String detail) {
        super(refused.getMessage() + " [" + detail + "]", refused);
        this.status = refused.status;
    }

    /**
     * A refusal the binding finds itself, with {@code detail} appended to the message.
     *
     * @param status the status number (not {@link Status#OK})
     * @param operation the method that refused, for the message
     * @param detail what was wrong (for example the family a stream holds)
     */
    SketchException(int status, String operation, String detail) {
        super(operation + ": " + Status.text(status) + " (status " + status + ") [" + detail + "]");
        this.status = status;
    }

    /**
     * The C status number, one of the {@link Status} constants.
     *
     * @return the status
     */
    public int status() {
        return status;
    }

    /**
     * The text of the status ({@code sketch_status_str}).
     *
     * @return the status text
     */
    public String statusText() {
        return Status.text(status);
    }
}
