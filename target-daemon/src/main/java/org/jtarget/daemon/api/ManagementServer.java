package org.jtarget.daemon.api;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ManagementConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The management API as configured ({@code management.socket}): started by the launcher once the
 * daemon serves, closed before it stops.
 */
public final class ManagementServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ManagementServer.class);

    private final ManagementApi api;
    private final UnixSocketListener socket;

    private ManagementServer(ManagementApi api, UnixSocketListener socket) {
        this.api = api;
        this.socket = socket;
    }

    /**
     * Starts what {@code config} asks for, or returns null when it asks for no API. A socket that
     * cannot be bound is a {@link ConfigException} naming {@code management.socket}.
     */
    public static ManagementServer start(ManagementConfig config, ManagedDaemon daemon) throws ConfigException {
        if (config == null || config.socket() == null) {
            return null;
        }
        ManagementApi api = new ManagementApi(daemon);
        try {
            return new ManagementServer(api, UnixSocketListener.start(config.socket(), api));
        } catch (IOException e) {
            api.close();
            throw new ConfigException(daemon.configFile().toString(), "management.socket",
                    "cannot listen on " + config.socket() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        socket.close();
        api.close();
        LOG.info("management API closed");
    }
}
