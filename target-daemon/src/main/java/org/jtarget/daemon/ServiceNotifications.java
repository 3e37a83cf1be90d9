package org.jtarget.daemon;

import org.jtarget.os.SystemdNotify;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * What the daemon tells systemd (a {@code Type=notify} unit, docs in systemd/jtargetd.service):
 * READY=1 once every portal listens, RELOADING=1 and READY=1 around a reload, STOPPING=1 when it
 * stops, a STATUS= line with each, and WATCHDOG=1 every half watchdog interval, but only while
 * every event loop still runs tasks: a daemon whose loops hang is restarted by systemd rather than
 * pinged alive by an idle thread. Without {@code NOTIFY_SOCKET} (not under systemd) it does nothing.
 */
final class ServiceNotifications implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceNotifications.class);

    /** Where notifications go (systemd's socket), or null: none. */
    private final String target;
    /** Sends one notification; 0 or the errno. */
    private final ToIntFunction<String> sender;
    private final Duration watchdogInterval;
    private final Runnable closer;
    private ScheduledExecutorService watchdog;
    /** The last send failed: the next failure is not logged again. */
    private boolean failing;
    /** The loops did not answer the last probe: logged once until they answer again. */
    private volatile boolean loopsLate;

    /**
     * @param target           where notifications go, for log lines; null: nowhere (nothing is sent)
     * @param sender           sends one notification, returning 0 or the errno
     * @param watchdogInterval the interval systemd expects WATCHDOG=1 within, or null
     */
    ServiceNotifications(String target, ToIntFunction<String> sender, Duration watchdogInterval, Runnable closer) {
        this.target = target;
        this.sender = sender;
        this.watchdogInterval = watchdogInterval;
        this.closer = closer;
    }

    /** For this process's environment; one WARN and no notifications when it names nothing usable. */
    static ServiceNotifications fromEnvironment(Map<String, String> env) {
        SystemdNotify notify = null;
        try {
            notify = SystemdNotify.fromEnvironment(env, ProcessHandle.current().pid());
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("no notifications to systemd: {}", e.getMessage());
        }
        if (notify == null) {
            return new ServiceNotifications(null, s -> 0, null, () -> { });
        }
        return new ServiceNotifications(notify.socketName(), notify::send, notify.watchdog(), notify::close);
    }

    void ready(String status) {
        send("READY=1\nSTATUS=" + status);
    }

    void reloading() {
        send("RELOADING=1\nSTATUS=reloading the configuration");
    }

    void stopping() {
        send("STOPPING=1\nSTATUS=stopping");
    }

    /**
     * Pings the watchdog every half interval while {@code probe} (a task run on every event loop)
     * completes within that half; nothing when systemd set no watchdog.
     */
    void startWatchdog(Supplier<CompletableFuture<Void>> probe) {
        Duration interval = watchdogInterval;
        if (interval == null || target == null) {
            return;
        }
        long half = Math.max(1, interval.toMillis() / 2);
        watchdog = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().name("jtargetd-watchdog")
                .daemon(true).unstarted(r));
        watchdog.scheduleWithFixedDelay(() -> pingIfAlive(probe, half), 0, half, TimeUnit.MILLISECONDS);
        LOG.info("systemd watchdog: {} ms, pinged every {} ms while the event loops answer", interval.toMillis(), half);
    }

    private void pingIfAlive(Supplier<CompletableFuture<Void>> probe, long withinMillis) {
        try {
            probe.get().get(withinMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (!loopsLate) {
                LOG.error("an event loop did not run a task within {} ms: the systemd watchdog is not pinged",
                        withinMillis);
            }
            loopsLate = true;
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            LOG.warn("event loop probe failed: {}", e.toString());
            return;
        }
        if (loopsLate) {
            LOG.info("the event loops answer again: the systemd watchdog is pinged again");
            loopsLate = false;
        }
        send("WATCHDOG=1");
    }

    private synchronized void send(String assignments) {
        if (target == null) {
            return;
        }
        int errno = sender.applyAsInt(assignments);
        if (errno != 0 && !failing) {
            LOG.warn("notification to systemd at {} not sent (errno {}): {}", target, errno,
                    assignments.replace('\n', ' '));
        }
        failing = errno != 0;
    }

    @Override
    public void close() {
        if (watchdog != null) {
            watchdog.shutdownNow();
        }
        closer.run();
    }
}
