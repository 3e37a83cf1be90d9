package org.jtarget.it;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, "Our initiator": 256 MiB written over SRP by {@code jtarget-initiator write srp://...}
 * (every byte fetched by the daemon with RDMA READ through the SRP_CMDs' direct descriptors) and
 * read back over SRP (placed by RDMA WRITE) and over TCP: the SHA-256 of both read-backs equals
 * that of the bytes written. The daemon is the real one, with a TCP and an SRP portal on one file
 * LUN ({@link RoundTripDigest}).
 */
class SrpDataIntegrityIT {

    private static final String IQN = "iqn.2026-11.org.jtarget:srp-integrity";

    @TempDir
    Path dir;

    private DaemonProcess daemon;
    private int port;
    private int srpPort;

    @BeforeEach
    void start() throws IOException {
        port = DaemonProcess.freePort();
        srpPort = DaemonProcess.freePort();
        Path config = DaemonConfig.write(dir, DaemonConfig.daemonAndPortalsYaml(port, 0)
                + DaemonConfig.srpPortalYaml(srpPort)
                + RoundTripDigest.lunYaml(IQN, "default, srp", DaemonConfig.SRP_TARGET));
        daemon = DaemonProcess.start(config, port);
    }

    @AfterEach
    void stop() {
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    @Test
    void twoHundredFiftySixMibWrittenOverSrpReadBackIdentical() throws Exception {
        RoundTripDigest.check(dir, DaemonConfig.srpUrl(srpPort, 0),
                "iscsi://" + DaemonProcess.HOST + ":" + port + "/" + IQN + "/0", () -> daemon.describe());
    }
}
