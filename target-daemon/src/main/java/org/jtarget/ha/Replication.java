package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ScatterList;

/** What a {@link ReplicatedBackstore} asks of its node: whether it may write, and to send changes to the peer. */
interface Replication {

    /** True while this node is the primary (it takes writes). */
    boolean serving();

    /** Sends a write to the secondary and waits; false when it was not applied there (the link is down or failed). */
    boolean write(int store, long lba, int blockSize, ScatterList src, int length, boolean fua);

    /** As the other {@code write}. */
    boolean write(int store, long lba, int blockSize, ByteBuf src, boolean fua);

    /**
     * Starts sending a write without blocking (see {@link org.jtarget.ha.link.ReplicationLink#tryWrite});
     * false when the peer is not following or the window is full.
     */
    boolean tryWrite(int store, long lba, int blockSize, ScatterList src, int length, boolean fua,
                     org.jtarget.ha.link.Ticket ticket);

    /** Where work that may block runs when an asynchronous change was not replicated. */
    java.util.concurrent.Executor blockingWork();

    boolean unmap(int store, long lba, long blocks);

    boolean flush(int store, long lba, long blocks);

    /**
     * Sends a {@link org.jtarget.ha.link.LinkHeader#STATE} message (its readable bytes) to the
     * secondary and waits; false when it was not installed there (the link is down or failed).
     */
    boolean state(int store, ByteBuf message);

    /** The largest STATE message the link carries (one staging slot). */
    int maxStateBytes();

    /**
     * A change was not replicated: the node goes on alone (degraded). Before it returns, the node's
     * new generation is on stable storage, so that the change may be acknowledged.
     */
    void notReplicated(String store) throws java.io.IOException;
}
