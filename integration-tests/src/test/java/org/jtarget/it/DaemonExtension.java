package org.jtarget.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * JUnit 5 extension giving a test class one running daemon with {@link DaemonConfig#standard(int)}
 * (or a config of its own) on a free loopback port, in a fresh temporary folder:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final DaemonExtension DAEMON = new DaemonExtension();
 * ... DAEMON.daemon().url(0) ...
 * }</pre>
 *
 * After all tests it stops the daemon with SIGTERM and fails unless it exits 0 within 20 s; the log
 * is kept in {@code integration-tests/target/daemon-logs/<TestClass>.log}. A failing test prints the
 * log tail.
 */
public final class DaemonExtension implements BeforeAllCallback, AfterAllCallback, TestWatcher {

    private final IntFunction<String> yamlForPort;
    /** An iSER and an SRP portal beside the TCP one ({@link #withRdmaPortals()}). */
    private final boolean rdmaPortals;
    private Function<Portals, String> yamlForPortals;
    private int iserPort;
    private int srpPort;
    private Path dir;
    private DaemonConfig config;
    private DaemonProcess daemon;

    /** The daemon on {@link DaemonConfig#standard(int)}. */
    public DaemonExtension() {
        this(null, false);
    }

    private DaemonExtension(IntFunction<String> yamlForPort, boolean rdmaPortals) {
        this.yamlForPort = yamlForPort;
        this.rdmaPortals = rdmaPortals;
    }

    /**
     * The daemon on {@link DaemonConfig#standard(int)} with an iSER and an SRP portal beside the TCP
     * one, all for the same target: for tests parametrized by {@link ScsiTransport}.
     */
    public static DaemonExtension withRdmaPortals() {
        return new DaemonExtension(null, true);
    }

    /**
     * The daemon on a config of the test's own with a TCP, an iSER and an SRP portal for one target
     * ({@link Portals#yaml} writes them): for tests parametrized by {@link ScsiTransport}.
     */
    public static DaemonExtension withRdmaPortals(Function<Portals, String> yamlForPortals) {
        DaemonExtension e = withRdmaPortals();
        e.yamlForPortals = yamlForPortals;
        return e;
    }

    /**
     * The daemon on a config of the test's own: {@code yamlForPort} gets the free port and returns
     * the YAML (relative paths in it land in the extension's temporary folder).
     */
    public DaemonExtension(IntFunction<String> yamlForPort) {
        this(yamlForPort, false);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("jtarget-it-" + context.getRequiredTestClass().getSimpleName() + "-");
        int port = DaemonProcess.freePort();
        iserPort = rdmaPortals ? DaemonProcess.freePort() : 0;
        srpPort = rdmaPortals ? DaemonProcess.freePort() : 0;
        if (yamlForPortals != null) {
            daemon = DaemonProcess.start(DaemonConfig.write(dir, yamlForPortals.apply(new Portals(port, iserPort, srpPort))),
                    port);
        } else if (yamlForPort != null) {
            daemon = DaemonProcess.start(DaemonConfig.write(dir, yamlForPort.apply(port)), port);
        } else {
            config = DaemonConfig.standard(port).withIserPortal(iserPort).withSrpPortal(srpPort);
            daemon = DaemonProcess.start(config.writeTo(dir), port);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        try {
            if (daemon != null) {
                daemon.stopCleanly();
            }
        } finally {
            if (daemon != null && daemon.isAlive()) {
                daemon.kill();
            }
            keepLog(context.getRequiredTestClass().getSimpleName());
            deleteTree(dir);
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        if (daemon != null) {
            System.err.println("[" + context.getDisplayName() + " failed] " + daemon.describe());
        }
    }

    /** The running daemon. */
    public DaemonProcess daemon() {
        if (daemon == null) {
            throw new IllegalStateException("the daemon is not started (register the extension as a static field)");
        }
        return daemon;
    }

    /** The port of {@code transport}'s portal. */
    public int port(Transport transport) {
        if (transport == Transport.ISER && iserPort == 0) {
            throw new IllegalStateException("this daemon has no iSER portal (see withRdmaPortals)");
        }
        return transport == Transport.TCP ? daemon().port() : iserPort;
    }

    /** The port of {@code transport}'s portal ({@link #withRdmaPortals()}). */
    public int port(ScsiTransport transport) {
        return switch (transport) {
            case TCP -> daemon().port();
            case ISER -> port(Transport.ISER);
            case SRP -> srpPort();
        };
    }

    /** The port of the SRP portal ({@link #withRdmaPortals()}). */
    public int srpPort() {
        if (srpPort == 0) {
            throw new IllegalStateException("this daemon has no SRP portal (see withRdmaPortals)");
        }
        return srpPort;
    }

    /** The standard config it runs, or null when the test gave its own YAML. */
    public DaemonConfig config() {
        return config;
    }

    private void keepLog(String name) throws IOException {
        if (dir == null || !Files.exists(dir.resolve("daemon.log"))) {
            return;
        }
        Path logs = Files.createDirectories(Path.of("target", "daemon-logs"));
        Files.copy(dir.resolve("daemon.log"), logs.resolve(name + ".log"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Deletes a folder and everything under it (a no-op for null). */
    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
