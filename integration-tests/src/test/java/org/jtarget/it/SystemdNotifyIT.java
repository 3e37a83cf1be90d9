package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon as a {@code Type=notify} systemd service (systemd/jtargetd.service), with the test
 * as the service manager: a datagram socket passed as {@code NOTIFY_SOCKET} and a watchdog of
 * {@code WATCHDOG_USEC}. READY=1 comes only once the portal accepts connections, with a STATUS
 * saying what is served; WATCHDOG=1 every half interval; SIGHUP is RELOADING=1 then READY=1 (a
 * refused reload's one-line error in STATUS); SIGTERM is STOPPING=1 and exit 0.
 */
class SystemdNotifyIT {

    private static final Duration WATCHDOG = Duration.ofSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private DaemonProcess daemon;

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.stop();
        }
    }

    @Test
    void readyAfterThePortalListensWatchdogWhileRunningReloadAndStopAreAnnounced() throws Throwable {
        int port = DaemonProcess.freePort();
        Path config = DaemonConfig.write(dir, DaemonConfig.standard(port).toYaml());
        try (NotifySocket systemd = new NotifySocket(dir.resolve("notify.sock"))) {
            daemon = DaemonProcess.startWithEnvironment(config, port, "NOTIFY_SOCKET=" + systemd.name(),
                    "WATCHDOG_USEC=" + WATCHDOG.toNanos() / 1000);
            String ready = systemd.next(WAIT);
            assertThat(ready).as("the first notification").isEqualTo("READY=1\nSTATUS=serving 1 target(s) on 1 portal(s)");
            assertThat(DaemonProcess.accepting(port)).as("the portal accepts once READY=1 came").isTrue();

            long t0 = System.nanoTime();
            assertThat(systemd.next(WATCHDOG)).isEqualTo("WATCHDOG=1");
            assertThat(systemd.next(WATCHDOG)).isEqualTo("WATCHDOG=1");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("two pings within the watchdog interval")
                    .isLessThan(WATCHDOG.plusMillis(500));

            daemon.signal("HUP");
            assertThat(systemd.await("RELOADING=1", WAIT)).isNotNull();
            assertThat(systemd.await("READY=1", WAIT)).as("after the reload")
                    .isEqualTo("READY=1\nSTATUS=serving 1 target(s) on 1 portal(s)");

            Files.writeString(config, Files.readString(config).replace("size: 384MiB", "size: lots"));
            daemon.signal("HUP");
            assertThat(systemd.await("READY=1", WAIT)).as("after a refused reload")
                    .startsWith("READY=1\nSTATUS=serving 1 target(s) on 1 portal(s); last reload refused: ")
                    .contains("size");

            assertThat(daemon.stop()).as("exit status after SIGTERM").isZero();
            assertThat(systemd.await("STOPPING=1", WAIT)).as("sent before it exited").isNotNull();
        }
    }
}
