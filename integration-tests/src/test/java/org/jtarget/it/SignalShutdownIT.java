package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SIGTERM with a session logged in: the daemon ends it, logs a clean stop and exits 0 in time, and
 * none of its portals accepts connections any more. The session is over TCP, over iSER or over SRP
 * ({@link ScsiTransport}; the daemon serves the three portals); it ends as its fabric ends it
 * ({@link ScsiClient#awaitTargetEnd}: over iSCSI the connection closes, over SRP an SRP_T_LOGOUT
 * comes before the disconnect). Each case stops a daemon of its own.
 */
class SignalShutdownIT {

    @TempDir
    Path dir;

    private DaemonProcess daemon;

    @AfterEach
    void stop() {
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    @ParameterizedTest(name = "[{0}] SIGTERM with a live session stops cleanly")
    @EnumSource(ScsiTransport.class)
    void sigtermWithALiveSessionStopsCleanly(ScsiTransport transport) throws IOException {
        DaemonConfig config = DaemonConfig.standard(DaemonProcess.freePort()).withIserPortal(DaemonProcess.freePort())
                .withSrpPortal(DaemonProcess.freePort());
        Portals portals = config.portals();
        DaemonProcess d = DaemonProcess.start(config.writeTo(dir), config.port());
        daemon = d;
        try (ScsiClient session = transport.login(portals.port(transport), "iqn.2026-11.org.jtarget:signal-it",
                Duration.ofSeconds(10))) {
            ScsiResult tur = session.testUnitReadyClearingUnitAttention(DaemonConfig.MEMORY_LUN);
            assertThat(tur.good()).as(tur + "\n" + d.describe()).isTrue();

            int code = d.stop();

            assertThat(code).as("exit code after SIGTERM\n" + d.describe()).isZero();
            assertThat(d.log()).as("the log records a clean stop\n" + d.describe()).containsIgnoringCase("stopped");
            ScsiClient.TargetEnd end = session.awaitTargetEnd(Duration.ofSeconds(5));
            assertThat(end.ended()).as("the session after the stop: " + end.how()).isTrue();
        }
        for (ScsiTransport t : ScsiTransport.values()) {
            assertThat(DaemonProcess.accepting(portals.port(t))).as(t + " port " + portals.port(t) + " after the stop")
                    .isFalse();
        }
    }
}
