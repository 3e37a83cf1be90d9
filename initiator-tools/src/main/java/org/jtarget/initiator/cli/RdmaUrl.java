package org.jtarget.initiator.cli;

import static org.jtarget.initiator.cli.UrlAuthority.bad;

import java.nio.charset.StandardCharsets;
import org.jtarget.fabric.endpoint.EndpointHandshake;

/**
 * A store endpoint of the daemon's RDMA listener: {@code rdma://host[:port]/endpoint}. The port
 * defaults to {@link EndpointHandshake#DEFAULT_PORT}; an IPv6 host is written in brackets; the
 * endpoint name is the whole path, taken as it is (no percent-decoding, as for iSCSI URLs).
 */
public record RdmaUrl(String host, int port, String endpoint) {

    public static final String SCHEME = "rdma://";

    /** Parses a URL starting with {@link #SCHEME}. */
    public static RdmaUrl parse(String url) throws CliFailure {
        UrlAuthority.WithPath parts = UrlAuthority.withPath(url, SCHEME, EndpointHandshake.DEFAULT_PORT,
                "rdma://host[:port]/endpoint", "store endpoints take no credentials");
        return new RdmaUrl(parts.authority().host(), parts.authority().port(), endpointName(url, parts.path()));
    }

    private static String endpointName(String url, String path) throws CliFailure {
        if (path.isEmpty()) {
            throw bad(url, "the endpoint name is missing");
        }
        if (path.contains("/")) {
            throw bad(url, "the endpoint name may not contain '/'");
        }
        if (path.getBytes(StandardCharsets.UTF_8).length > EndpointHandshake.MAX_NAME_BYTES) {
            throw bad(url, "the endpoint name is longer than " + EndpointHandshake.MAX_NAME_BYTES + " UTF-8 bytes");
        }
        return path;
    }

    @Override
    public String toString() {
        return SCHEME + new UrlAuthority(host, port) + "/" + endpoint;
    }
}
