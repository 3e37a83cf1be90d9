package org.jtarget.ha.link;

import io.netty.buffer.ByteBuf;

/** What the replication link tells the node that owns it. Called on the link's event loop unless said otherwise. */
public interface LinkEvents {

    /** This node's HELLO for a new connection, without the staging fields (the link fills them). */
    Hello hello();

    /** The peer said HELLO: the link is up. The node checks it and may {@link ReplicationLink#drop} it. */
    void up(Hello peer);

    /** The link that was up is down ({@code reason} for the log); every request outstanding was answered as lost. */
    void down(String reason);

    /**
     * The peer asks this node to apply a {@link LinkHeader#WRITE} ({@code data}: the bytes, in the
     * staging slot, valid until {@code ack} is answered), {@link LinkHeader#UNMAP} or
     * {@link LinkHeader#FLUSH} of {@code blocks} blocks at {@code lba} of store number
     * {@code store} (its index in the HELLO). Must not block: store I/O that may block goes to
     * another thread, which answers {@code ack}; a store that never blocks (memory) may be written
     * here and {@code ack} answered before this returns (no hand-off to a thread and back).
     */
    void apply(int type, int store, long lba, long blocks, int flags, ByteBuf data, Acknowledgement ack);

    /** The peer, the primary, hands the pair over to this node (a planned switchover). */
    void handover();

    /** The peer refused a request of this node (its store failed): for the log. */
    void refused(String what, int store, long lba, long blocks, String why);
}
