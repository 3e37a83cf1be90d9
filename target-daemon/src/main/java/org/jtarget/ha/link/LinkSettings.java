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
 * @param slotCount         staging slots: requests one node may have outstanding at the other
 */
public record LinkSettings(String node, String peerNode, InetSocketAddress listen, InetSocketAddress peer,
                           Duration heartbeatInterval, Duration heartbeatTimeout, int slotSize, int slotCount) {

    /** 16 slots of 256 KiB: 4 MiB of registered memory each way, 16 writes of up to 256 KiB in flight. */
    public static final int DEFAULT_SLOT_SIZE = 256 << 10;
    public static final int DEFAULT_SLOT_COUNT = 16;

    public LinkSettings {
        if (slotCount < 1 || slotCount > 1024 || slotSize < 4096 || Integer.bitCount(slotSize) != 1) {
            throw new IllegalArgumentException("staging: " + slotCount + " slots of " + slotSize + " bytes");
        }
    }

    /**
     * Whether this node makes the connection (the other listens for it): the node whose name sorts
     * first, so that the two never race to make two links.
     */
    public boolean dials() {
        return node.compareTo(peerNode) < 0;
    }
}
