package org.jtarget.it;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, "Our initiator": 256 MiB written over iSER by {@code jtarget-initiator write iser://...}
 * (every byte fetched by the daemon with RDMA READ) and read back over iSER (placed by RDMA WRITE)
 * and over TCP: the SHA-256 of both read-backs equals that of the bytes written. The daemon is
 * the real one, with a TCP and an iSER portal on one file LUN ({@link RoundTripDigest}).
 */
class IserDataIntegrityIT {

    private static final String IQN = "iqn.2026-11.org.jtarget:iser-integrity";

    @TempDir
    Path dir;

    private DaemonProcess daemon;
    private int port;
    private int iserPort;

    @BeforeEach
    void start() throws IOException {
        port = DaemonProcess.freePort();
        iserPort = DaemonProcess.freePort();
        Path config = DaemonConfig.write(dir, DaemonConfig.daemonAndPortalsYaml(port, iserPort)
                + RoundTripDigest.lunYaml(IQN, DaemonConfig.targetPortals(iserPort), ""));
        daemon = DaemonProcess.start(config, port);
    }

    @AfterEach
    void stop() {
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    @Test
    void twoHundredFiftySixMibWrittenOverIserReadBackIdentical() throws Exception {
        RoundTripDigest.check(dir, "iser://" + DaemonProcess.HOST + ":" + iserPort + "/" + IQN + "/0",
                "iscsi://" + DaemonProcess.HOST + ":" + port + "/" + IQN + "/0", () -> daemon.describe());
    }
}
