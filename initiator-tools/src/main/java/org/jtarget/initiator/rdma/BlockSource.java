package org.jtarget.initiator.rdma;

import java.io.IOException;

/**
 * Supplies the bytes a write sends, in LBA order, one request's worth at a time.
 *
 * @param <X> what else it may throw
 */
@FunctionalInterface
public interface BlockSource<X extends Exception> {

    /** Fills {@code into[0..length)} with the next bytes. */
    void fill(byte[] into, int length) throws IOException, X;
}
