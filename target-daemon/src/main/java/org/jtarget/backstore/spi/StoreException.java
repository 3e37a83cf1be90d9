package org.jtarget.backstore.spi;

import java.io.IOException;

/** An I/O failure whose SCSI meaning the store knows (e.g. no space left on a thin file). */
public final class StoreException extends IOException {

    /** What went wrong, in terms the core maps to one sense reason each. */
    public enum Kind {
        /** EIO while reading: MEDIUM ERROR / UNRECOVERED READ ERROR. */
        READ_ERROR,
        /** EIO while writing: MEDIUM ERROR / WRITE ERROR. */
        WRITE_ERROR,
        /** ENOSPC or a memory cap reached: out of space for a thin store. */
        SPACE_EXHAUSTED,
        /** The backing file or device is gone: the LU is NOT READY. */
        MEDIUM_GONE,
        /**
         * The store does not take writes on this node now (an HA node that is not, or no longer,
         * the primary): NOT READY / LOGICAL UNIT NOT ACCESSIBLE, ASYMMETRIC ACCESS STATE
         * TRANSITION, which tells a multipath initiator to use another path.
         */
        NOT_SERVED_HERE
    }

    private final Kind kind;

    public StoreException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
