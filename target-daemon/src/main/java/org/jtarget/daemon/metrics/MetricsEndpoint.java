package org.jtarget.daemon.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.jtarget.config.ConfigException;
import org.jtarget.config.ManagementConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code /metrics} on the management listener ({@code management: { http: ..., metrics: true }}):
 * the Prometheus client's HTTP server (the JDK's, on one thread of its own: a scrape never runs
 * on an event loop) with a registry holding only {@link JtargetCollector}.
 */
public final class MetricsEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

    private final HTTPServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(HTTPServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Listens as configured; a port in use or an address not of this host is a
     * {@link ConfigException} naming {@code management.http}.
     */
    public static MetricsEndpoint start(ManagementConfig config, String source, JtargetCollector collector)
            throws ConfigException {
        PrometheusRegistry metrics = new PrometheusRegistry();
        metrics.register(collector);
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name("jtargetd-metrics")
                .daemon(true).unstarted(r));
        try {
            HTTPServer server = HTTPServer.builder().hostname(config.httpHost()).port(config.httpPort())
                    .registry(metrics).executorService(executor).buildAndStart();
            LOG.info("metrics on http://{}:{}/metrics", config.httpHost().contains(":") ? "[" + config.httpHost() + "]"
                    : config.httpHost(), server.getPort());
            return new MetricsEndpoint(server, executor);
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            throw new ConfigException(source, "management.http", "cannot listen on " + config.httpHost() + ":"
                    + config.httpPort() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        server.close();
        executor.shutdownNow();
    }
}
