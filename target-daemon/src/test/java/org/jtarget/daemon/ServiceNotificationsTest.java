package org.jtarget.daemon;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** The watchdog pings only while the event loops answer; without a notify socket nothing is sent. */
class ServiceNotificationsTest {

    private final List<String> sent = new CopyOnWriteArrayList<>();

    private ServiceNotifications notifications(Duration watchdog) {
        return new ServiceNotifications("test", s -> {
            sent.add(s);
            return 0;
        }, watchdog, () -> { });
    }

    @Test
    void theWatchdogIsPingedEveryHalfIntervalWhileTheLoopsAnswer() throws Exception {
        try (ServiceNotifications n = notifications(Duration.ofMillis(200))) {
            n.startWatchdog(() -> CompletableFuture.completedFuture(null));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (sent.size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        assertThat(sent).hasSizeGreaterThanOrEqualTo(3).containsOnly("WATCHDOG=1");
    }

    @Test
    void aLoopThatDoesNotAnswerStopsThePings() throws Exception {
        CompletableFuture<Void> never = new CompletableFuture<>();
        try (ServiceNotifications n = notifications(Duration.ofMillis(200))) {
            n.startWatchdog(() -> never);
            Thread.sleep(550);
        }
        assertThat(sent).isEmpty();
    }

    @Test
    void withoutASocketNothingIsSentAndNoWatchdogRuns() throws Exception {
        try (ServiceNotifications n = ServiceNotifications.fromEnvironment(java.util.Map.of("WATCHDOG_USEC", "1000"))) {
            n.ready("serving");
            n.startWatchdog(() -> {
                throw new AssertionError("no watchdog without NOTIFY_SOCKET");
            });
        }
    }

    @Test
    void lifecycleNotificationsSaySystemdsWords() {
        try (ServiceNotifications n = notifications(null)) {
            n.ready("serving 1 target(s)");
            n.reloading();
            n.stopping();
        }
        assertThat(sent).containsExactly("READY=1\nSTATUS=serving 1 target(s)",
                "RELOADING=1\nSTATUS=reloading the configuration", "STOPPING=1\nSTATUS=stopping");
    }
}
