package org.jtarget.config;

import java.time.Duration;
import java.util.List;

/**
 * The optional top-level {@code ha:} map: this daemon is one of a pair, where the primary serves
 * the replicated backstores and sends their writes to the secondary (issue 17).
 *
 * <pre>
 * ha:
 *   node: alpha                   # this node's name: 1..64 of A-Z a-z 0-9 . _ -
 *   listen: 0.0.0.0:7700          # this node's replication listener (host:port, like rdma.listen)
 *   peer:
 *     node: beta                  # the other node's name, not this node's
 *     address: 192.0.2.2:7700     # its replication listener; a host name or an IP literal
 *   witness: 192.0.2.3:7800       # optional: a third jtarget daemon that breaks ties
 *   preferred-primary: alpha      # optional: which node serves when both start with the same data;
 *                                 # node or peer.node, default the name that sorts first
 *   heartbeat-interval: 1s        # optional (default 1s): 5, 5s or 500ms
 *   heartbeat-timeout: 5s         # optional (default 5s): at least twice heartbeat-interval
 *   region-size: 4KiB             # optional (default 4KiB): dirty-region granularity, a power of two
 *                                 # from 4KiB to 64MiB
 *   backstores: [file0, disk1]    # the replicated stores (not partitions: replicate the parent)
 * </pre>
 *
 * @param node              this node's name
 * @param listenHost        the literal address the replication listener binds
 * @param listenPort        its TCP port
 * @param peerNode          the peer's name, not {@code node}
 * @param peerHost          the peer's replication listener: a host name or an IP literal (no brackets)
 * @param peerPort          its TCP port
 * @param witnessHost       the witness daemon's host name or IP literal, or null for none
 * @param witnessPort       its TCP port, or 0 for none
 * @param preferredPrimary  {@code node} or {@code peerNode}: the one that serves when both have the same data
 * @param heartbeatInterval how often each node tells the other it is alive
 * @param heartbeatTimeout  how long without a heartbeat before the peer counts as gone, at least
 *                          twice {@code heartbeatInterval}
 * @param regionSize        bytes a dirty-region bit stands for: a power of two from 4 KiB to 64 MiB
 * @param backstores        the names of the replicated backstores, at least one, no partition
 */
public record HaConfig(String node, String listenHost, int listenPort, String peerNode, String peerHost,
                       int peerPort, String witnessHost, int witnessPort, String preferredPrimary,
                       Duration heartbeatInterval, Duration heartbeatTimeout, int regionSize,
                       List<String> backstores) {

    /** {@code heartbeat-interval} when absent. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    /** {@code heartbeat-timeout} when absent. */
    public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Duration.ofSeconds(5);
    /** {@code region-size} when absent, and the smallest one. */
    public static final int DEFAULT_REGION_SIZE = 4096;
    /** The largest {@code region-size}. */
    public static final int MAX_REGION_SIZE = 64 << 20;

    public HaConfig {
        backstores = List.copyOf(backstores);
    }

    /** True if the backstore with this name is replicated to the peer. */
    public boolean replicates(String backstoreName) {
        return backstores.contains(backstoreName);
    }

    /**
     * The two node names, sorted and joined with {@code +} ({@code alpha+beta}): the same on both
     * nodes, so it seeds the identity of the replicated LUs and both report the same designators.
     */
    public String pairId() {
        return node.compareTo(peerNode) < 0 ? node + "+" + peerNode : peerNode + "+" + node;
    }

    /** True if a witness is configured. */
    public boolean hasWitness() {
        return witnessHost != null;
    }
}
