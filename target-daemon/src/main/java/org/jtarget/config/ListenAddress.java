package org.jtarget.config;

/**
 * A {@code listen: host:port} value: an IPv4 literal or a bracketed IPv6 literal (host names are
 * refused: no DNS at startup), and a port 1..65535.
 *
 * @param host the literal without brackets
 * @param port the TCP port
 */
record ListenAddress(String host, int port) {

    /** Reads {@code key} of {@code node}; every problem names that key. */
    static ListenAddress read(ConfigNode node, String key) throws ConfigException {
        String listen = node.requireString(key);
        int colon = listen.lastIndexOf(':');
        if (colon <= 0) {
            throw node.error(key, "expected host:port, got '" + listen + "' (IPv6: \"[::]:3260\", quoted)");
        }
        return new ListenAddress(hostOf(node, key, listen.substring(0, colon)),
                portOf(node, key, listen.substring(colon + 1)));
    }

    /** {@code host:port}, IPv6 in brackets: the form the config takes. */
    String describe() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }

    private static String hostOf(ConfigNode node, String key, String host) throws ConfigException {
        if (host.startsWith("[") && host.endsWith("]")) {
            String v6 = host.substring(1, host.length() - 1);
            if (v6.matches("[0-9A-Fa-f:.]+") && v6.contains(":") && validV6(v6)) {
                return v6;
            }
        } else if (host.matches("\\d{1,3}(\\.\\d{1,3}){3}") && validV4(host)) {
            return host;
        }
        throw node.error(key, "bad address '" + host
                + "' (use an IPv4 literal such as 0.0.0.0 or a bracketed IPv6 literal such as [::])");
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
