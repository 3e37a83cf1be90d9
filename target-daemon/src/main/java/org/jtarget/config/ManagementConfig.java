package org.jtarget.config;

import java.nio.file.Path;

/**
 * The optional top-level {@code management:} map: how people and monitoring reach the running
 * daemon, off unless configured.
 *
 * <pre>
 * management:
 *   socket: /run/jtarget/jtarget.sock  # the management API (/api/v1) over HTTP on a Unix socket, mode 0600
 *   http: 127.0.0.1:9180   # a TCP listener (host:port, an IP literal); keep it off public networks
 *   metrics: true          # serve /metrics there (OpenMetrics / Prometheus text); default false
 *   token-file: api-token  # serve /api/v1 on http too, to requests bearing this token (a secret file)
 *   metrics-token-file: metrics-token  # /metrics only to requests bearing this other token
 * </pre>
 *
 * @param httpHost the TCP listener's address literal, or null for none
 * @param httpPort its TCP port (0 when there is none)
 * @param metrics  whether {@code /metrics} is served on the TCP listener
 * @param socket   the Unix socket of the management API, or null for none
 * @param apiToken the bearer token the API asks of requests over TCP, or null: then the API is not
 *                 served over TCP at all
 * @param metricsToken the bearer token {@code /metrics} asks of scrapes, or null: anyone who reaches
 *                     the listener may scrape. Not the API's: a scraper must not manage the daemon
 */
public record ManagementConfig(String httpHost, int httpPort, boolean metrics, Path socket, String apiToken,
                               String metricsToken) {

    /** The socket a packaged service uses (its unit's {@code RuntimeDirectory=jtarget} makes the folder). */
    public static final String DEFAULT_SOCKET = "/run/jtarget/jtarget.sock";

    private static final java.util.Set<String> KEYS = ConfigNode.keys("http", "metrics", "socket", "token-file",
            "metrics-token-file");

    /** Only a TCP listener, no API. */
    public ManagementConfig(String httpHost, int httpPort, boolean metrics) {
        this(httpHost, httpPort, metrics, null, null, null);
    }

    /** Without a metrics token. */
    public ManagementConfig(String httpHost, int httpPort, boolean metrics, Path socket, String apiToken) {
        this(httpHost, httpPort, metrics, socket, apiToken, null);
    }

    /** True when a TCP listener is configured. */
    public boolean hasHttp() {
        return httpHost != null;
    }

    /** Hides the token: configs are logged and served by the API. */
    @Override
    public String toString() {
        return "ManagementConfig[http=" + (hasHttp() ? httpHost + ":" + httpPort : "none") + ", metrics=" + metrics
                + ", socket=" + socket + ", token=" + (apiToken == null ? "none" : "(set)")
                + ", metrics-token=" + (metricsToken == null ? "none" : "(set)") + "]";
    }

    /** Reads {@code management:}; null when absent. */
    static ManagementConfig read(ConfigNode root, Path baseDir, SecretFiles secrets) throws ConfigException {
        ConfigNode node = root.map("management");
        if (node == null) {
            return null;
        }
        node.requireOnlyKeys(KEYS);
        String socketName = node.string("socket");
        Path socket = socketName == null ? null : baseDir.resolve(socketName).normalize();
        if (socket == null && node.scalar("http") == null) {
            throw node.error("http", "missing (give http, socket or both)");
        }
        ListenAddress http = node.scalar("http") == null ? null : ListenAddress.read(node, "http");
        boolean metrics = node.bool("metrics", false);
        if (http == null && metrics) {
            throw node.error("metrics", "served on http, which is not given");
        }
        if (http == null && node.scalar("token-file") != null) {
            throw node.error("token-file", "the token is for the API on http, which is not given");
        }
        if (!metrics && node.scalar("metrics-token-file") != null) {
            throw node.error("metrics-token-file", "the token is for /metrics, which is not served (metrics: true)");
        }
        String token = node.scalar("token-file") == null ? null : secrets.read(node, "token-file");
        String metricsToken = node.scalar("metrics-token-file") == null ? null
                : secrets.read(node, "metrics-token-file");
        if (metricsToken != null && metricsToken.equals(token)) {
            throw node.error("metrics-token-file", "holds the API's token (token-file): give scrapers a token of "
                    + "their own, the API's manages the daemon");
        }
        return new ManagementConfig(http == null ? null : http.host(), http == null ? 0 : http.port(), metrics, socket,
                token, metricsToken);
    }
}
