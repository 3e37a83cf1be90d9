package org.jtarget.daemon.api;

import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.jtarget.daemon.JtargetDaemon;
import org.jtarget.daemon.TargetRuntime;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * A started runtime with its management API, as the launcher wires them (reload through
 * {@link JtargetDaemon#reload}), from a config text the test writes.
 */
final class RunningDaemon implements AutoCloseable {

    final Path configFile;
    final TargetRuntime runtime;
    /** The API, or null when the config asks for none; tests may close it early. */
    ManagementServer api;

    private RunningDaemon(Path configFile, TargetRuntime runtime, ManagementServer api) {
        this.configFile = configFile;
        this.runtime = runtime;
        this.api = api;
    }

    static RunningDaemon start(Path configFile, String yaml) throws Exception {
        Files.writeString(configFile, yaml);
        JtargetConfig config = ConfigLoader.load(configFile);
        TargetRuntime runtime = new TargetRuntime(config);
        try {
            runtime.start();
            return new RunningDaemon(configFile, runtime, ManagementServer.start(config.management(),
                    new ManagedDaemon(runtime, configFile, Instant.now(), () -> JtargetDaemon.reload(runtime, configFile))));
        } catch (Exception | Error e) {
            runtime.stop(Duration.ofSeconds(5));
            throw e;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    void closeApi() {
        if (api != null) {
            api.close();
            api = null;
        }
    }

    @Override
    public void close() {
        closeApi();
        runtime.stop(Duration.ofSeconds(5));
    }
}
