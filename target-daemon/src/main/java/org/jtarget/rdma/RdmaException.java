package org.jtarget.rdma;

/**
 * A control-path verb failed (registration, queue pair modification, connection management). It
 * carries the errno libibverbs would return. The data path (post, poll) returns codes instead.
 */
public class RdmaException extends Exception {

    private final int errno;

    public RdmaException(int errno, String message) {
        super(message);
        this.errno = errno;
    }

    /** The {@link Errno} value. */
    public int errno() {
        return errno;
    }
}
