package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.jtarget.daemon.api.ManagedDaemon;
import org.jtarget.daemon.api.ManagementServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code jtargetd --config FILE}: loads the config, starts the runtime, runs until SIGTERM/SIGINT,
 * stops within the configured shutdown timeout. SIGHUP reloads the config file (targets, LUNs,
 * ACLs) without stopping.
 *
 * <p>The command line is {@link DaemonCommandLine}'s. Exit status: 0 clean stop, {@code --help},
 * {@code --version} or a {@code --check} that passed; 1 start failure or a stop that timed out;
 * 2 usage error or bad configuration (a management socket that cannot be bound too), told in
 * exactly one line on stderr with nothing left running (systemd: {@code RestartPreventExitStatus=2},
 * so a bad config does not restart-loop).
 */
public final class JtargetDaemon {

    /** Exit status for a bad command line or configuration. */
    public static final int EXIT_CONFIG = 2;
    /** Exit status for a start failure or a stop that did not finish in time. */
    public static final int EXIT_FAILURE = 1;

    /** Grace on top of the shutdown timeout before the launcher stops waiting for the runtime. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(JtargetDaemon.class);

    private JtargetDaemon() {
    }

    public static void main(String[] args) {
        int status = run(args, System.out, System.err, DaemonRuntimeFactory.standard(),
                timeout -> ShutdownSignals.install(timeout.plus(STOP_GRACE).plus(STOP_GRACE)));
        System.exit(status);
    }

    /**
     * The whole lifecycle, returning the exit status (tests call it with their own runtime and
     * stop requests).
     *
     * @param signals installs the stop requests, given the configured shutdown timeout
     */
    static int run(String[] args, PrintStream out, PrintStream err, DaemonRuntimeFactory factory,
                   Function<Duration, StopRequests> signals) {
        DaemonCommandLine options;
        try {
            options = DaemonCommandLine.parse(args);
        } catch (picocli.CommandLine.ParameterException e) {
            err.println("jtargetd: " + e.getMessage() + " (jtargetd --help shows the usage)");
            return EXIT_CONFIG;
        }
        if (options.help || options.version) {
            out.print(options.help ? DaemonCommandLine.usage() : DaemonCommandLine.versionText() + System.lineSeparator());
            out.flush();
            return 0;
        }
        if (options.witness) {
            return runWitness(options.listen, options.stateDir, err, signals);
        }
        if (options.check) {
            return check(options.config, out, err);
        }
        Path configFile = options.config;
        LOG.info("jtargetd starting, config {}", configFile);
        JtargetConfig config;
        try {
            config = ConfigLoader.load(configFile);
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return EXIT_CONFIG;
        }
        Duration timeout = config.daemon().shutdownTimeout();
        StopRequests stop = signals.apply(timeout);
        DaemonRuntime runtime = factory.create(config);
        FilesCreatedByStart created = FilesCreatedByStart.expectedFor(config);
        int started = start(runtime, configFile, timeout, err);
        if (started != 0) {
            created.remove();
            stop.stopped();
            return started;
        }
        LOG.info("jtargetd started");
        try (ServiceNotifications systemd = ServiceNotifications.fromEnvironment(System.getenv())) {
            Supplier<String> reload = () -> {
                systemd.reloading();
                String refused = reload(runtime, configFile);
                systemd.ready(refused == null ? runtime.summary() : runtime.summary() + "; last reload refused: " + refused);
                return refused;
            };
            ManagementServer management;
            try {
                management = ManagementServer.start(config.management(),
                        new ManagedDaemon(runtime, configFile, Instant.now(), reload));
            } catch (ConfigException e) {
                stopBounded(runtime, timeout);
                err.println(e.getMessage());
                stop.stopped();
                return EXIT_CONFIG;
            }
            systemd.ready(runtime.summary());
            systemd.startWatchdog(runtime::probe);
            stop.onReload(reload::get);
            stop.onSwitchover(runtime::switchover);
            awaitStop(stop);
            systemd.stopping();
            if (management != null) {
                management.close(); // before the runtime: no request reaches a stopping daemon
            }
        }
        int status = stopBounded(runtime, timeout);
        LOG.info("jtargetd stopped");
        stop.stopped();
        return status;
    }

    /**
     * {@code jtargetd --witness --listen HOST:PORT [--state-dir DIR]}: the witness of HA pairs
     * (docs/ha.md) until SIGTERM.
     */
    static int runWitness(String listen, Path stateDir, PrintStream err, Function<Duration, StopRequests> signals) {
        java.net.InetSocketAddress address = witnessAddress(listen);
        if (address == null) {
            err.println("jtargetd: --listen " + listen + ": not HOST:PORT with a port 1-65535 (jtargetd --help shows the usage)");
            return EXIT_CONFIG;
        }
        StopRequests stop = signals.apply(Duration.ofSeconds(5));
        try (org.jtarget.ha.witness.WitnessServer w = org.jtarget.ha.witness.WitnessServer.start(address,
                stateDir.resolve("witness.state"))) {
            LOG.info("jtargetd witness started on {}", w.address());
            try (ServiceNotifications systemd = ServiceNotifications.fromEnvironment(System.getenv())) {
                systemd.ready("witness on " + w.address());
                awaitStop(stop);
                systemd.stopping();
            }
        } catch (java.io.IOException e) {
            err.println("jtargetd --witness: " + e.getMessage());
            stop.stopped();
            return EXIT_FAILURE;
        }
        LOG.info("jtargetd witness stopped");
        stop.stopped();
        return 0;
    }

    /** {@code HOST:PORT} ({@code [v6]:PORT}) as a socket address, or null when it is not one. */
    private static java.net.InetSocketAddress witnessAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            return null;
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int port = Integer.parseInt(hostPort.substring(colon + 1));
            return port < 1 || port > 65535 ? null : new java.net.InetSocketAddress(host, port);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code --check}: 0 and one line on out when a start would accept the config, else 2 and the one-line error. */
    private static int check(Path configFile, PrintStream out, PrintStream err) {
        try {
            out.println(ConfigCheck.check(configFile));
            return 0;
        } catch (ConfigException e) {
            err.println(e.withSource(configFile.toString()).getMessage());
            return EXIT_CONFIG;
        }
    }

    /** 0 if started; otherwise stops what was opened and returns the exit status. */
    private static int start(DaemonRuntime runtime, Path configFile, Duration timeout, PrintStream err) {
        try {
            runtime.start();
            return 0;
        } catch (ConfigException e) {
            stopBounded(runtime, timeout);
            err.println(e.withSource(configFile.toString()).getMessage());
            return EXIT_CONFIG;
        } catch (Exception | Error e) {
            LOG.error("jtargetd failed to start", e);
            stopBounded(runtime, timeout);
            return EXIT_FAILURE;
        }
    }

    /**
     * SIGHUP: reads the config file again and applies it. A bad file, or a change that needs a
     * restart, is one ERROR line naming the key, and the daemon keeps running as it was. Returns
     * null when applied, else why not (for the service manager's status line).
     */
    public static String reload(DaemonRuntime runtime, Path configFile) {
        LOG.info("reload requested (SIGHUP or the management API), reloading {}", configFile);
        try {
            runtime.reload(ConfigLoader.loadForReload(configFile, servedFiles(runtime)));
            return null;
        } catch (ConfigException e) {
            String why = e.withSource(configFile.toString()).getMessage();
            LOG.error("reload refused, nothing changed: {}", why);
            return why;
        } catch (Exception | Error e) {
            LOG.error("reload failed", e);
            return "reload failed: " + e;
        }
    }

    /** The image files the running config serves: a reload may grow them (see ConfigChanges). */
    private static java.util.Set<Path> servedFiles(DaemonRuntime runtime) {
        RuntimeState state = runtime.state();
        if (state == null) {
            return java.util.Set.of();
        }
        return state.config().backstores().stream()
                .filter(b -> b.type() == org.jtarget.config.BackstoreConfig.Type.FILE)
                .map(org.jtarget.config.BackstoreConfig::path)
                .collect(java.util.stream.Collectors.toSet());
    }

    private static void awaitStop(StopRequests stop) {
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.info("interrupted, stopping");
        }
    }

    /** Runs {@link DaemonRuntime#stop} on its own thread and waits at most timeout + grace. */
    static int stopBounded(DaemonRuntime runtime, Duration timeout) {
        int[] status = {EXIT_FAILURE};
        Thread stopper = Thread.ofPlatform().name("jtargetd-stop").daemon().unstarted(() -> {
            try {
                runtime.stop(timeout);
                status[0] = 0;
            } catch (Exception e) {
                LOG.error("jtargetd: stop failed", e);
            }
        });
        stopper.start();
        try {
            stopper.join(timeout.plus(STOP_GRACE));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stopper.isAlive()) {
            LOG.error("jtargetd: stop did not finish within {} s; exiting anyway", timeout.toSeconds());
            return EXIT_FAILURE;
        }
        return status[0];
    }
}
