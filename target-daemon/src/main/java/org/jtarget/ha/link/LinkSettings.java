package org.jtarget.ha.link;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * How one node's replication link runs.
 *
 * @param node              this node's name
 * @param peerNode          the peer's name
 * @param listen            where this node accepts the peer's connection
 * @param peer              the peer's listener
 * @param heartbeatInterval how often a node sends something when it has nothing else to send
 * @param heartbeatTimeout  how long without any message from the peer before the link is declared lost
 * @param slotSize          bytes of one staging slot (the largest piece of a write sent at once)
 * @param slotCount         staging slots: requests one node may have outstanding at each lane of the other
 * @param lanes             connections the dialing node makes (1 to {@link #MAX_LANES}): the first
 *                          carries everything but writes started on another event loop, which
 *                          each go over the lane on their own loop ({@link ReplicationLink})
 */
public record LinkSettings(String node, String peerNode, InetSocketAddress listen, InetSocketAddress peer,
                           Duration heartbeatInterval, Duration heartbeatTimeout, int slotSize, int slotCount, int lanes) {

    /**
     * 32 slots of 128 KiB: 4 MiB of registered memory each way, as 16 of 256 KiB were, but a window
     * of 32 requests: an initiator at queue depth 32 with small writes found 16 full half the time,
     * and every write that found no free slot took the blocking path (an I/O thread, two wake-ups).
     * A 1 MiB write is 8 pieces, still started at once ({@link ReplicationLink#tryWrite}).
     */
    public static final int DEFAULT_SLOT_SIZE = 128 << 10;
    public static final int DEFAULT_SLOT_COUNT = 32;
    /**
     * At most one lane per event loop and this many in all: each lane takes 8 MiB of registered
     * memory at each end (its staging both ways), and the pinned arena is 64 MiB by default.
     */
    public static final int MAX_LANES = 4;

    public LinkSettings {
        if (slotCount < 1 || slotCount > 1024 || slotSize < 4096 || Integer.bitCount(slotSize) != 1) {
            throw new IllegalArgumentException("staging: " + slotCount + " slots of " + slotSize + " bytes");
        }
        if (lanes < 1 || lanes > MAX_LANES) {
            throw new IllegalArgumentException("lanes: " + lanes + ", not 1 to " + MAX_LANES);
        }
    }

    /** One lane: every request over one connection. */
    public LinkSettings(String node, String peerNode, InetSocketAddress listen, InetSocketAddress peer,
                        Duration heartbeatInterval, Duration heartbeatTimeout, int slotSize, int slotCount) {
        this(node, peerNode, listen, peer, heartbeatInterval, heartbeatTimeout, slotSize, slotCount, 1);
    }

    /** The lanes for a daemon with {@code eventLoops} event loops: one per loop, at most {@link #MAX_LANES}. */
    public static int lanesFor(int eventLoops) {
        return Math.clamp(eventLoops, 1, MAX_LANES);
    }

    /**
     * Whether this node makes the connection (the other listens for it): the node whose name sorts
     * first, so that the two never race to make two links.
     */
    public boolean dials() {
        return node.compareTo(peerNode) < 0;
    }
}
