package org.jtarget.os;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What sd_notify(3) takes from the environment, the socket address it makes, and a send with no listener. */
class SystemdNotifyTest {

    @TempDir
    Path dir;

    @Test
    void notStartedBySystemdMeansNoNotifier() throws Exception {
        assertThat(SystemdNotify.fromEnvironment(Map.of(), 1)).isNull();
        assertThat(SystemdNotify.fromEnvironment(Map.of("NOTIFY_SOCKET", ""), 1)).isNull();
    }

    @Test
    void theWatchdogIntervalIsForThisProcessOnly() {
        assertThat(SystemdNotify.watchdogInterval(Map.of("WATCHDOG_USEC", "30000000"), 7)).isEqualTo(Duration.ofSeconds(30));
        assertThat(SystemdNotify.watchdogInterval(Map.of("WATCHDOG_USEC", "500000", "WATCHDOG_PID", "7"), 7))
                .isEqualTo(Duration.ofMillis(500));
        assertThat(SystemdNotify.watchdogInterval(Map.of("WATCHDOG_USEC", "500000", "WATCHDOG_PID", "8"), 7)).isNull();
        assertThat(SystemdNotify.watchdogInterval(Map.of(), 7)).isNull();
        assertThatThrownBy(() -> SystemdNotify.watchdogInterval(Map.of("WATCHDOG_USEC", "soon"), 7))
                .hasMessageContaining("WATCHDOG_USEC=soon");
        assertThatThrownBy(() -> SystemdNotify.watchdogInterval(Map.of("WATCHDOG_USEC", "0"), 7))
                .hasMessageContaining("WATCHDOG_USEC=0");
    }

    @Test
    void aPathEndsWithANulAndAnAbstractNameStartsWithOne() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment path = SystemdNotify.sockaddrUn(arena, "/run/systemd/notify");
            assertThat(path.byteSize()).isEqualTo(2 + 19 + 1);
            assertThat(path.get(ValueLayout.JAVA_SHORT, 0)).isEqualTo((short) Libc.AF_UNIX);
            assertThat(text(path, 2, 19)).isEqualTo("/run/systemd/notify");
            assertThat(path.get(ValueLayout.JAVA_BYTE, 21)).isZero();

            MemorySegment abstractName = SystemdNotify.sockaddrUn(arena, "@jtarget/1");
            assertThat(abstractName.byteSize()).as("no trailing NUL: the length bounds the name").isEqualTo(2 + 10);
            assertThat(abstractName.get(ValueLayout.JAVA_BYTE, 2)).isZero();
            assertThat(text(abstractName, 3, 9)).isEqualTo("jtarget/1");
        }
    }

    @Test
    void namesThatAreNoSocketAddressAreRefusedNamingTheVariable() {
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> SystemdNotify.sockaddrUn(arena, "run/notify")).hasMessageContaining("NOTIFY_SOCKET=");
            assertThatThrownBy(() -> SystemdNotify.sockaddrUn(arena, "/" + "x".repeat(107)))
                    .hasMessageContaining("longer than a socket address holds");
        }
    }

    @Test
    void aSendWithNobodyListeningReturnsTheErrnoAndAfterCloseNothingIsSent() throws Exception {
        SystemdNotify n = SystemdNotify.fromEnvironment(Map.of("NOTIFY_SOCKET", dir.resolve("nobody").toString()), 1);
        assertThat(n.send("READY=1")).as("ENOENT: no socket at that path").isEqualTo(2);
        n.close();
        assertThat(n.send("READY=1")).isEqualTo(Libc.EBADF);
    }

    private static String text(MemorySegment s, long offset, int length) {
        return new String(s.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
