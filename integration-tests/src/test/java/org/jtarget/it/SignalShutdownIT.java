package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.ProtocolErrorOutcome;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** SIGTERM with a session logged in: the daemon closes it, logs a clean stop and exits 0 in time. */
class SignalShutdownIT {

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension();

    @Test
    void sigtermWithALiveSessionStopsCleanly() throws IOException {
        DaemonProcess d = DAEMON.daemon();
        try (RawIscsiClient session = RawIscsiClient.connect(DaemonProcess.HOST, d.port(), Duration.ofSeconds(10))) {
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
        assertThat(DaemonProcess.accepting(d.port())).as("port " + d.port() + " after the stop").isFalse();
    }
}
