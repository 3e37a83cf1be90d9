package org.jtarget.daemon.api;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ManagementConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The management API as configured ({@code management.socket}, {@code management.token-file}):
 * started by the launcher once the daemon serves, closed before it stops.
 *
 * @param api    the routes
 * @param daemon what they manage
 * @param socket the Unix socket listener, or null when only the TCP listener serves the API
 */
public record ManagementServer(ManagementApi api, ManagedDaemon daemon, UnixSocketListener socket)
        implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ManagementServer.class);

    /**
     * Starts what {@code config} asks for: the API on {@code management.socket}, and on
     * {@code management.http} when a token file is given. Returns null when it asks for neither.
     * A socket that cannot be bound is a {@link ConfigException} naming {@code management.socket}.
     */
    public static ManagementServer start(ManagementConfig config, ManagedDaemon daemon) throws ConfigException {
        boolean overHttp = config != null && config.hasHttp() && config.apiToken() != null;
        if (config == null || (config.socket() == null && !overHttp)) {
            return null;
        }
        ManagementApi api = new ManagementApi(daemon);
        UnixSocketListener socket = null;
        if (config.socket() != null) {
            try {
                socket = UnixSocketListener.start(config.socket(), api);
            } catch (IOException e) {
                api.close();
                throw new ConfigException(daemon.configFile().toString(), "management.socket",
                        "cannot listen on " + config.socket() + ": " + e.getMessage(), e);
            }
        }
        if (overHttp) {
            daemon.runtime().serveApiOverHttp(new TokenHttpHandler(api, config.apiToken()));
        }
        return new ManagementServer(api, daemon, socket);
    }

    @Override
    public void close() {
        daemon.runtime().serveApiOverHttp(null);
        if (socket != null) {
            socket.close();
        }
        api.close();
        LOG.info("management API closed");
    }
}
