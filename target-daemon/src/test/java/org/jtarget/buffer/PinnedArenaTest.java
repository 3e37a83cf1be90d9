package org.jtarget.buffer;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.jtarget.os.Libc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Mapping, pinning (mlock) and the refused-pin path of the pinned arena. */
class PinnedArenaTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger(PinnedArena.class);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    @BeforeEach
    void captureLog() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void releaseLog() {
        logger.detachAppender(log);
    }

    /** VmLck of this process in KiB (proc(5)): memory mlock'ed now. */
    private static long lockedKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmLck:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new IllegalStateException("no VmLck in /proc/self/status");
    }

    @Test
    void aPinnedRegionIsPageAlignedLockedAndUsable() throws IOException {
        long before = lockedKib();
        // 1 MiB: within the default 8 MiB RLIMIT_MEMLOCK, so this pins even without CAP_IPC_LOCK
        try (PinnedArena arena = PinnedArena.map((1 << 20) - 100, true)) {
            assertThat(arena.isPinned()).isTrue();
            assertThat(arena.lockErrno()).isZero();
            assertThat(arena.size()).as("rounded up to pages").isEqualTo(1 << 20);
            assertThat(arena.address() % PinnedArena.ALIGNMENT).isZero();
            assertThat(arena.segment().byteSize()).isEqualTo(1 << 20);
            assertThat(arena.segment().address()).isEqualTo(arena.address());
            assertThat(lockedKib() - before).as("VmLck grew by the region").isGreaterThanOrEqualTo(1024);
            arena.segment().set(ValueLayout.JAVA_LONG, (1 << 20) - 8, 42L);
            assertThat(arena.segment().get(ValueLayout.JAVA_LONG, (1 << 20) - 8)).isEqualTo(42L);
            assertThat(log.list).isEmpty();
        }
        assertThat(lockedKib()).as("unmapped, so unlocked").isEqualTo(before);
    }

    @Test
    void aRefusedPinRunsUnpinnedAndSaysHowToFixItOnce() throws IOException {
        try (PinnedArena arena = PinnedArena.map(64 << 10, true, (state, address, length) -> Libc.ENOMEM)) {
            assertThat(arena.isPinned()).isFalse();
            assertThat(arena.lockErrno()).isEqualTo(Libc.ENOMEM);
            arena.segment().set(ValueLayout.JAVA_INT, 0, 7);
            assertThat(arena.segment().get(ValueLayout.JAVA_INT, 0)).isEqualTo(7);
        }
        assertThat(log.list).hasSize(1);
        ILoggingEvent warning = log.list.getFirst();
        assertThat(warning.getLevel()).isEqualTo(Level.WARN);
        assertThat(warning.getFormattedMessage()).contains("UNPINNED").contains("CAP_IPC_LOCK")
                .contains("LimitMEMLOCK=").contains("ulimit -l").contains("64KiB").contains("ENOMEM");
    }

    @Test
    void withoutPinItIsNotLockedAndSaysNothing() throws IOException {
        try (PinnedArena arena = PinnedArena.map(64 << 10, false)) {
            assertThat(arena.isPinned()).isFalse();
            assertThat(arena.lockErrno()).isZero();
        }
        assertThat(log.list).isEmpty();
    }

    @Test
    void containsChecksTheWholeRangeAtBothEnds() throws IOException {
        try (PinnedArena arena = PinnedArena.map(8192, false)) {
            long a = arena.address();
            assertThat(arena.contains(a, 8192)).isTrue();
            assertThat(arena.contains(a + 4096, 4096)).isTrue();
            assertThat(arena.contains(a + 4096, 4097)).isFalse();
            assertThat(arena.contains(a - 1, 2)).isFalse();
            assertThat(arena.contains(a + 8192, 0)).isTrue();
            assertThat(arena.contains(a + 8192, 1)).isFalse();
            assertThat(arena.contains(a, -1)).isFalse();
        }
    }

    @Test
    void aNonPositiveSizeIsRefused() {
        assertThatThrownBy(() -> PinnedArena.map(0, false)).isInstanceOf(IllegalArgumentException.class);
    }
}
