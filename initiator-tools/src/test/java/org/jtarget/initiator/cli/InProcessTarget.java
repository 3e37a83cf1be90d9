package org.jtarget.initiator.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.daemon.TargetRuntime;
import org.junit.jupiter.api.Assumptions;

/**
 * The daemon's runtime in the test's process, started from a YAML config, for the CLI's tests over
 * the RDMA transports (iSER, SRP). A test is skipped, not failed, where the memlock limit refuses
 * the pinned arena those portals register (DESIGN 3).
 */
public final class InProcessTarget implements AutoCloseable {

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

    private final TargetRuntime runtime;

    private InProcessTarget(TargetRuntime runtime) {
        this.runtime = runtime;
    }

    /** Writes {@code yaml} as {@code dir/jtarget.yaml} and starts the runtime on it. */
    public static InProcessTarget start(Path dir, String yaml) throws Exception {
        Path file = Files.writeString(dir.resolve("jtarget.yaml"), yaml);
        TargetRuntime runtime = new TargetRuntime(ConfigLoader.load(file));
        try {
            runtime.start();
        } catch (ConfigException e) {
            Assumptions.assumeFalse(e.getMessage().contains("not pinned"), "mlock refused: " + e.getMessage());
            throw e;
        }
        return new InProcessTarget(runtime);
    }

    /** A TCP port free at the moment. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        runtime.stop(STOP_TIMEOUT);
    }
}
