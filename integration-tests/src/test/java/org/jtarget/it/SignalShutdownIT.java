package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.ProtocolErrorOutcome;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SIGTERM with a session logged in: the daemon closes it, logs a clean stop and exits 0 in time,
 * and neither portal accepts connections any more. The session is over TCP or over iSER
 * ({@link Transport}); each case stops a daemon of its own.
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
    @EnumSource(Transport.class)
    void sigtermWithALiveSessionStopsCleanly(Transport transport) throws IOException {
        DaemonConfig config = DaemonConfig.standard(DaemonProcess.freePort()).withIserPortal(DaemonProcess.freePort());
        DaemonProcess d = DaemonProcess.start(config.writeTo(dir), config.port());
        daemon = d;
        int port = transport == Transport.TCP ? config.port() : config.iserPort();
        try (RawIscsiClient session = transport.connect(port, Duration.ofSeconds(10))) {
            LoginResult login = session.login("iqn.2026-11.org.jtarget:signal-it", DaemonConfig.IQN);
            assertThat(login.succeeded()).as(login + "\n" + d.describe()).isTrue();
            ScsiResult tur = session.testUnitReadyClearingUnitAttention(DaemonConfig.MEMORY_LUN);
            assertThat(tur.good()).as(tur + "\n" + d.describe()).isTrue();

            int code = d.stop();

            assertThat(code).as("exit code after SIGTERM\n" + d.describe()).isZero();
            assertThat(d.log()).as("the log records a clean stop\n" + d.describe()).containsIgnoringCase("stopped");
            ProtocolErrorOutcome end = session.awaitRejectOrClose(Duration.ofSeconds(5));
            assertThat(end.kind()).as("the session's connection after the stop: " + end)
                    .isEqualTo(ProtocolErrorOutcome.Kind.CLOSED);
        }
        assertThat(DaemonProcess.accepting(config.port())).as("TCP port " + config.port() + " after the stop").isFalse();
        assertThat(DaemonProcess.accepting(config.iserPort())).as("iSER port " + config.iserPort() + " after the stop")
                .isFalse();
    }
}
