package org.jtarget.initiator.cli;

/**
 * The {@code host[:port]} part of the CLI's URLs (iscsi://, iser://, srp:// and rdma://): an IPv6
 * host is written in brackets, the port is 1..65535 and defaults per scheme.
 */
record UrlAuthority(String host, int port) {

    /** Parses {@code authority}, a part of {@code url} (named in errors). */
    static UrlAuthority parse(String url, String authority, int defaultPort) throws CliFailure {
        String host;
        String port = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw bad(url, "unclosed '[' in the host");
            }
            host = authority.substring(1, close);
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw bad(url, "unexpected text after the host");
                }
                port = after.substring(1);
            }
        } else {
            int colon = authority.indexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            port = colon < 0 ? null : authority.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw bad(url, "the host is missing");
        }
        return new UrlAuthority(host, port == null ? defaultPort : parsePort(url, port));
    }

    private static int parsePort(String url, String port) throws CliFailure {
        try {
            int p = Integer.parseInt(port);
            if (p >= 1 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw bad(url, "the port must be 1..65535");
    }

    /** A {@code scheme://host[:port]/path} URL taken apart: its host and port, and the text after the first '/'. */
    record WithPath(UrlAuthority authority, String path) {
    }

    /**
     * Takes apart a URL of {@code scheme} that has a path and no credentials (rdma://, srp://):
     * {@code form} says what was expected when there is no path, {@code noCredentials} why a
     * {@code user@} is refused.
     */
    static WithPath withPath(String url, String scheme, int defaultPort, String form, String noCredentials)
            throws CliFailure {
        if (url == null || !url.startsWith(scheme)) {
            throw bad(url, "must start with " + scheme);
        }
        String rest = url.substring(scheme.length());
        int slash = rest.indexOf('/');
        if (slash < 0) {
            throw bad(url, "expected " + form);
        }
        String authority = rest.substring(0, slash);
        if (authority.contains("@")) {
            throw bad(url, noCredentials);
        }
        return new WithPath(parse(url, authority, defaultPort), rest.substring(slash + 1));
    }

    /** A usage failure naming the URL and what is wrong with it. */
    static CliFailure bad(String url, String why) {
        return CliFailure.usage("bad URL '" + url + "': " + why);
    }

    /** {@code host:port}, the host in brackets when it is an IPv6 address. */
    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
