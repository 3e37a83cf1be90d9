package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The config reads {@code transport: srp} portals; until the SRP fabric lands the daemon refuses to start with one. */
class SrpPortalRuntimeTest {

    @TempDir
    Path dir;

    @Test
    void anSrpPortalIsAOneLineConfigErrorAtStart() throws Exception {
        Path file = Files.writeString(dir.resolve("jtarget.yaml"), """
                daemon: { buffer-pool: { pinned-size: 0 } }
                portals:
                  - { name: srp, listen: "127.0.0.1:3261", transport: srp }
                targets:
                  - iqn: iqn.2026-11.org.jtarget:srp
                    portals: [srp]
                    acl: ["*"]
                    srp: { id-ext: 0x1, ioc-guid: 0x2 }
                """);
        TargetRuntime runtime = new TargetRuntime(ConfigLoader.load(file));
        try {
            assertThatThrownBy(runtime::start).isInstanceOf(ConfigException.class)
                    .hasMessage(file + ": portals[0].transport: transport: srp is not served yet");
        } finally {
            runtime.stop(Duration.ofSeconds(5));
        }
    }
}
