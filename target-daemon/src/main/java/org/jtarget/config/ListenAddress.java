package org.jtarget.config;

import java.util.List;

/**
 * A {@code listen: host:port} value: an IPv4 literal or a bracketed IPv6 literal (host names are
 * refused: no DNS at startup), and a port 1..65535. {@link #readRemote} reads the address of
 * another machine the same way, where a host name is accepted too (it is resolved when connecting).
 *
 * @param host the literal (or, for a remote address, the host name) without brackets
 * @param port the TCP port
 */
record ListenAddress(String host, int port) {

    /** One DNS label (RFC 1123): letters, digits and inner hyphens, at most 63. */
    private static final String LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

    /** Reads {@code key} of {@code node}; every problem names that key. */
    static ListenAddress read(ConfigNode node, String key) throws ConfigException {
        return read(node, key, false);
    }

    /**
     * Reads {@code key} of {@code node} as the address of another machine: as {@link #read}, or a
     * host name ({@code db1}, {@code peer.example.org}) in place of the literal.
     */
    static ListenAddress readRemote(ConfigNode node, String key) throws ConfigException {
        return read(node, key, true);
    }

    private static ListenAddress read(ConfigNode node, String key, boolean names) throws ConfigException {
        String listen = node.requireString(key);
        int colon = listen.lastIndexOf(':');
        if (colon <= 0) {
            throw node.error(key, "expected host:port, got '" + listen + "' (IPv6: \"[::]:3260\", quoted)");
        }
        String host = listen.substring(0, colon);
        return new ListenAddress(names && isHostName(host) ? host : hostOf(node, key, host, names),
                portOf(node, key, listen.substring(colon + 1)));
    }

    /**
     * Refuses this address at {@code key} when a portal listens on it too: the second listener
     * could not bind.
     */
    void requireNoPortal(ConfigNode node, String key, List<PortalConfig> portals) throws ConfigException {
        for (PortalConfig p : portals) {
            if (is(p.host(), p.port())) {
                throw node.error(key, describe() + " is also portal '" + p.name() + "'s address");
            }
        }
    }

    /** True for the same host (as written) and port. */
    boolean is(String otherHost, int otherPort) {
        return host.equals(otherHost) && port == otherPort;
    }

    /** {@code host:port}, IPv6 in brackets: the form the config takes. */
    String describe() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }

    private static String hostOf(ConfigNode node, String key, String host, boolean names) throws ConfigException {
        if (host.startsWith("[") && host.endsWith("]")) {
            String v6 = host.substring(1, host.length() - 1);
            if (v6.matches("[0-9A-Fa-f:.]+") && v6.contains(":") && validV6(v6)) {
                return v6;
            }
        } else if (host.matches("\\d{1,3}(\\.\\d{1,3}){3}") && validV4(host)) {
            return host;
        }
        throw node.error(key, "bad address '" + host + "' (use " + (names ? "a host name, " : "")
                + "an IPv4 literal such as 0.0.0.0 or a bracketed IPv6 literal such as [::])");
    }

    /**
     * A DNS host name: dot-separated {@link #LABEL}s, at most 253 characters, and not all digits
     * and dots (that is an IPv4 literal, checked as one).
     */
    private static boolean isHostName(String host) {
        return host.length() <= 253 && host.matches(LABEL + "(\\." + LABEL + ")*") && !host.matches("[\\d.]+");
    }

    /**
     * An IP address literal (IPv4 dotted, or IPv6 with or without brackets) in the form
     * {@link java.net.InetAddress#getHostAddress()} gives, or null if {@code text} is not one.
     */
    static String ipLiteral(String text) {
        String t = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        boolean v4 = t.matches("\\d{1,3}(\\.\\d{1,3}){3}") && validV4(t);
        boolean v6 = t.matches("[0-9A-Fa-f:.]+") && t.contains(":") && validV6(t);
        if (!v4 && !v6) {
            return null;
        }
        try {
            return java.net.InetAddress.getByName(t).getHostAddress();
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }

    private static boolean validV4(String host) {
        for (String part : host.split("\\.")) {
            if (Integer.parseInt(part) > 255) {
                return false;
            }
        }
        return true;
    }

    /** A string with a colon is parsed as an IPv6 literal, never looked up in DNS. */
    static boolean validV6(String literal) {
        try {
            return java.net.InetAddress.getByName(literal) instanceof java.net.Inet6Address
                    || literal.startsWith("::ffff:");
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static int portOf(ConfigNode node, String key, String text) throws ConfigException {
        if (text.matches("\\d{1,5}")) {
            int port = Integer.parseInt(text);
            if (port >= 1 && port <= 65535) {
                return port;
            }
        }
        throw node.error(key, "bad port '" + text + "' (1..65535)");
    }
}
