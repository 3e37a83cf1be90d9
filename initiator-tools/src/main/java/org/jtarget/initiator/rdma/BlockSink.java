package org.jtarget.initiator.rdma;

import java.io.IOException;

/**
 * Takes the blocks a read brings, in LBA order, one request's worth at a time.
 *
 * @param <X> what else it may throw (e.g. a verify's miscompare)
 */
@FunctionalInterface
public interface BlockSink<X extends Exception> {

    /** {@code data} holds {@code blocks} blocks from {@code lba}; the sink may keep it. */
    void accept(long lba, int blocks, byte[] data) throws IOException, X;
}
