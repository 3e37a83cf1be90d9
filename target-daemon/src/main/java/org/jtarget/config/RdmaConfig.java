package org.jtarget.config;

import java.util.List;

/**
 * The optional top-level {@code rdma:} map: store endpoints served over the emulated RDMA {@code tcp}
 * provider, so that a client RDMA READs and WRITEs store blocks one-sided (issue 6).
 *
 * <pre>
 * rdma:
 *   listen: 127.0.0.1:4791        # where the iwarp provider accepts connections
 *   endpoints:
 *     - name: ram0-direct         # what a client names in its connect request (rdma://host:4791/ram0-direct)
 *       backstore: ram0           # a store or a partition
 *       first-block: 0            # first block exposed (default 0)
 *       block-count: 0            # blocks exposed; 0 (default) = to the end of the store
 *       read-only: false          # refuse RDMA WRITEs
 *       write-through: true       # every write is FUA: a completed RDMA WRITE is on stable storage
 *       allowed-peers: [127.0.0.1] # required: IP addresses that may connect; there is no wildcard
 * </pre>
 *
 * @param host      the literal address to bind
 * @param port      the TCP port
 * @param endpoints the endpoints, at least one
 */
public record RdmaConfig(String host, int port, List<EndpointConfig> endpoints) {

    public RdmaConfig {
        endpoints = List.copyOf(endpoints);
    }

    /**
     * One store endpoint ({@code rdma.endpoints[]}).
     *
     * @param name          unique, 1..64 characters of {@code A-Z a-z 0-9 . _ : -}
     * @param backstore     the store or partition exposed
     * @param firstBlock    the first block exposed
     * @param blockCount    blocks exposed; 0 = to the end of the store
     * @param readOnly      remote WRITEs are refused
     * @param writeThrough  writes are FUA
     * @param allowedPeers  peer IP addresses in the form {@link java.net.InetAddress#getHostAddress()} gives
     *                      ({@code ::1} is kept as {@code 0:0:0:0:0:0:0:1}), so they compare with what a
     *                      connection reports
     */
    public record EndpointConfig(String name, String backstore, long firstBlock, long blockCount, boolean readOnly,
                                 boolean writeThrough, List<String> allowedPeers) {

        public EndpointConfig {
            allowedPeers = List.copyOf(allowedPeers);
        }
    }
}
