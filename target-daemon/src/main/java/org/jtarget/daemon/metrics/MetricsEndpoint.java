package org.jtarget.daemon.metrics;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.jtarget.config.ConfigException;
import org.jtarget.config.ManagementConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The TCP management listener ({@code management.http}): {@code /metrics} when
 * {@code metrics: true} (the Prometheus client's handler over a registry holding only
 * {@link JtargetCollector}) and the management API under {@code /api/} when a token file is
 * configured; {@code /metrics} asks for a bearer token when {@code metrics-token-file} is set. The JDK's HTTP server, on one thread of its own: a scrape or an API call never runs
 * on an event loop.
 */
public final class MetricsEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Listens as configured; a port in use or an address not of this host is a
     * {@link ConfigException} naming {@code management.http}.
     *
     * @param collector the metrics, or null when {@code /metrics} is not served
     * @param api       the handler of {@code /api/}, or null when the API is not served on TCP
     */
    public static MetricsEndpoint start(ManagementConfig config, String source, JtargetCollector collector,
                                        HttpHandler api) throws ConfigException {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name("jtargetd-metrics")
                .daemon(true).unstarted(r));
        String where = config.httpHost().contains(":") ? "[" + config.httpHost() + "]" : config.httpHost();
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(config.httpHost(), config.httpPort()), 0);
            server.setExecutor(executor);
            if (collector != null) {
                PrometheusRegistry metrics = new PrometheusRegistry();
                metrics.register(collector);
                HttpHandler scrape = new MetricsHandler(metrics);
                server.createContext("/metrics", config.metricsToken() == null ? scrape
                        : new BearerTokenGate(config.metricsToken(), scrape));
                LOG.info("metrics on http://{}:{}/metrics{}", where, server.getAddress().getPort(),
                        config.metricsToken() == null ? "" : " (bearer token from management.metrics-token-file)");
            }
            if (api != null) {
                server.createContext("/api/", api);
                LOG.info("management API on http://{}:{}/api/v1 (bearer token from management.token-file)", where,
                        server.getAddress().getPort());
            }
            server.start();
            return new MetricsEndpoint(server, executor);
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            throw new ConfigException(source, "management.http", "cannot listen on " + config.httpHost() + ":"
                    + config.httpPort() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
