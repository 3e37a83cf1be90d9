package org.jtarget.config;

import org.apache.commons.configuration2.YAMLConfiguration;
import org.apache.commons.configuration2.ex.ConfigurationException;
import org.apache.commons.configuration2.tree.ImmutableNode;
import org.jtarget.units.ByteSize;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.MarkedYAMLException;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Reads {@code jtarget.yaml} with Commons Configuration ({@link YAMLConfiguration}) and turns it
 * into a validated {@link JtargetConfig}. Every problem is a {@link ConfigException} whose one-line
 * message names the file, the key and the problem. Unknown keys are errors (a {@code readonly:}
 * typo must not silently give a writable LUN), YAML duplicate keys too.
 *
 * <p>Decisions: {@code acl} is required (an open target must be asked for with {@code ["*"]});
 * a file backstore whose file exists must match {@code size} exactly (no silent grow or shrink;
 * without {@code size} the file's size is used); a missing file needs {@code create: true}.
 */
public final class ConfigLoader {

    private static final Set<String> ROOT_KEYS = ConfigNode.keys("daemon", "portals", "backstores", "targets",
            "rdma", "ha", "management");
    private static final Set<String> DAEMON_KEYS = ConfigNode.keys("state-dir", "event-loop-threads",
            "io-threads-per-lun", "shutdown-timeout", "memory-limit", "sanitize-rate",
            "buffer-pool");
    private static final Set<String> BUFFER_POOL_KEYS = ConfigNode.keys("pinned-size", "pin");

    private ConfigLoader() {
    }

    /** Loads and validates the file; relative paths in it resolve against its folder. */
    public static JtargetConfig load(Path file) throws ConfigException {
        String credentials = System.getenv("CREDENTIALS_DIRECTORY");
        return load(file, credentials == null || credentials.isEmpty() ? null : Path.of(credentials));
    }

    /**
     * {@link #load(Path)} with secret files' bare names looked up in {@code credentialsDir}
     * (systemd's {@code $CREDENTIALS_DIRECTORY}), or null.
     */
    public static JtargetConfig load(Path file, Path credentialsDir) throws ConfigException {
        return load(file, credentialsDir, Set.of());
    }

    /**
     * {@link #load(Path)} for a reload: the file stores at {@code servedFiles}, which the running
     * daemon holds open, may have a {@code size} other than their file's (the daemon grows a store
     * live, and refuses a smaller size itself, naming the key).
     */
    public static JtargetConfig loadForReload(Path file, Set<Path> servedFiles) throws ConfigException {
        String credentials = System.getenv("CREDENTIALS_DIRECTORY");
        return load(file, credentials == null || credentials.isEmpty() ? null : Path.of(credentials), servedFiles);
    }

    private static JtargetConfig load(Path file, Path credentialsDir, Set<Path> servedFiles) throws ConfigException {
        String source = file.toString();
        ConfigNode root = new ConfigNode(source, "", readTree(file, source));
        root.requireOnlyKeys(ROOT_KEYS);
        Path baseDir = file.toAbsolutePath().normalize().getParent();
        DaemonSettings daemon = readDaemon(root, baseDir);
        List<PortalConfig> portals = PortalReader.read(root);
        List<BackstoreConfig> backstores = BackstoreReader.read(root, baseDir, servedFiles);
        checkMemoryLimit(source, daemon, backstores);
        SecretFiles secrets = new SecretFiles(baseDir, credentialsDir);
        List<TargetConfig> targets = TargetReader.read(root, portals, backstores, secrets);
        RdmaConfig rdma = RdmaReader.read(root, portals, backstores);
        HaConfig ha = HaReader.read(root, portals, backstores, rdma);
        return new JtargetConfig(file, daemon, portals, backstores, targets, rdma, ha,
                ManagementConfig.read(root, baseDir, secrets));
    }

    private static ImmutableNode readTree(Path file, String source) throws ConfigException {
        YAMLConfiguration yaml = new EmptyAwareYamlConfiguration();
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            yaml.read(reader, options);
        } catch (NoSuchFileException e) {
            throw new ConfigException(source, null, "no such file", e);
        } catch (IOException e) {
            throw new ConfigException(source, null, "cannot read: " + e.getMessage(), e);
        } catch (ConfigurationException | RuntimeException e) {
            throw yamlError(source, e);
        }
        return yaml.getNodeModel().getNodeHandler().getRootNode();
    }

    /** A YAML syntax error as one line with its line number. */
    private static ConfigException yamlError(String source, Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException m && m.getProblemMark() != null) {
                return new ConfigException(source, "line " + (m.getProblemMark().getLine() + 1),
                        "YAML syntax: " + m.getProblem(), e);
            }
        }
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return new ConfigException(source, null, "not valid YAML: " + root.getMessage(), e);
    }

    private static DaemonSettings readDaemon(ConfigNode root, Path baseDir) throws ConfigException {
        DaemonSettings d = DaemonSettings.defaults(baseDir);
        ConfigNode node = root.map("daemon");
        if (node == null) {
            return d;
        }
        node.requireOnlyKeys(DAEMON_KEYS);
        String stateDir = node.string("state-dir");
        int loops = node.integer("event-loop-threads", 0, 0, 1024);
        int io = node.integer("io-threads-per-lun", d.ioThreadsPerLun(), 1, 64);
        int timeout = node.integer("shutdown-timeout", DaemonSettings.DEFAULT_SHUTDOWN_SECONDS, 1, 3600);
        long memoryLimit = sizeOrUnlimited(node, "memory-limit", d.memoryLimit(), DaemonSettings.UNLIMITED);
        long sanitizeRate = sizeOrUnlimited(node, "sanitize-rate", d.sanitizeRate(), 0);
        return new DaemonSettings(stateDir == null ? d.stateDir() : baseDir.resolve(stateDir).normalize(),
                loops == 0 ? d.eventLoopThreads() : loops, io, Duration.ofSeconds(timeout), memoryLimit, sanitizeRate,
                readBufferPool(node));
    }

    /** {@code daemon.buffer-pool}: {@code pinned-size} (a size, 0 = none) and {@code pin} (true/false/required). */
    private static BufferPoolSettings readBufferPool(ConfigNode daemon) throws ConfigException {
        ConfigNode node = daemon.map("buffer-pool");
        BufferPoolSettings d = BufferPoolSettings.DEFAULTS;
        if (node == null) {
            return d;
        }
        node.requireOnlyKeys(BUFFER_POOL_KEYS);
        long size = d.pinnedSize();
        Object v = node.scalar("pinned-size");
        if (v != null) {
            try {
                size = ByteSize.parse(v);
            } catch (IllegalArgumentException e) {
                throw node.error("pinned-size", e.getMessage() + "; 0 for no arena");
            }
            if (size > BufferPoolSettings.MAX_PINNED_SIZE) {
                throw node.error("pinned-size", "at most " + ByteSize.format(BufferPoolSettings.MAX_PINNED_SIZE)
                        + ", got " + v);
            }
        }
        Object pin = node.scalar("pin");
        BufferPoolSettings.Pin mode = d.pin();
        if (pin != null) {
            mode = Boolean.TRUE.equals(pin) ? BufferPoolSettings.Pin.TRY
                    : Boolean.FALSE.equals(pin) ? BufferPoolSettings.Pin.OFF
                    : "required".equals(pin) ? BufferPoolSettings.Pin.REQUIRED : null;
            if (mode == null) {
                throw node.error("pin", "expected true, false or required, got '" + pin + "'");
            }
        }
        return new BufferPoolSettings(size, mode);
    }

    /** A positive size (bytes or K/M/G/T), or the word unlimited, returned as {@code unlimited}. */
    private static long sizeOrUnlimited(ConfigNode node, String key, long dflt, long unlimited) throws ConfigException {
        Object v = node.scalar(key);
        if (v == null) {
            return dflt;
        }
        if ("unlimited".equals(v)) {
            return unlimited;
        }
        long bytes;
        try {
            bytes = ByteSize.parse(v);
        } catch (IllegalArgumentException e) {
            throw node.error(key, e.getMessage() + " or 'unlimited'");
        }
        if (bytes <= 0) {
            throw node.error(key, "must be positive, got " + v);
        }
        return bytes;
    }

    /**
     * Fully provisioned memory stores take their whole size when the daemon starts: if together
     * they do not fit {@code daemon.memory-limit}, say so now rather than fail half-started.
     */
    private static void checkMemoryLimit(String source, DaemonSettings daemon, List<BackstoreConfig> backstores)
            throws ConfigException {
        long total = 0;
        StringBuilder names = new StringBuilder();
        for (BackstoreConfig b : backstores) {
            if (b.type() == BackstoreConfig.Type.MEMORY && !b.thin()) {
                total += b.sizeBytes();
                names.append(names.isEmpty() ? "" : ", ").append(b.name()).append(' ').append(ByteSize.format(b.sizeBytes()));
            }
        }
        if (total > daemon.memoryLimit()) {
            throw new ConfigException(source, "daemon.memory-limit", "fully provisioned (thin: false) memory backstores need "
                    + ByteSize.format(total) + " (" + names + ") but the limit is " + ByteSize.format(daemon.memoryLimit())
                    + "; raise it or make some thin");
        }
    }
}
