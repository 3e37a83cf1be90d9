package org.jtarget.daemon;

import org.jtarget.os.Libc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * SIGTERM and SIGINT as stop requests, SIGHUP as a config reload request. The handlers replace
 * the JVM's default (which would start the shutdown sequence and end with status 143) so the main
 * thread can stop the runtime in order and exit 0, which systemd counts as a clean stop, and so
 * that SIGHUP ({@code systemctl reload}) re-reads the config instead of stopping the daemon.
 * {@code sun.misc.Signal} is the only JDK API for this (module jdk.unsupported). A shutdown hook
 * covers every other way the JVM may go down (-Xrs, System.exit elsewhere): it requests the stop
 * and waits for it, bounded.
 */
final class ShutdownSignals implements StopRequests {

    private static final Logger LOG = LoggerFactory.getLogger(ShutdownSignals.class);

    private final CountDownLatch requested = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    /** Reload requests not yet taken by the reload thread (SIGHUPs merged while one runs). */
    private final Semaphore reloads = new Semaphore(0);

    private ShutdownSignals() {
    }

    /**
     * A daemon started with SIGHUP ignored (nohup, some supervisors and CI runners) would keep
     * ignoring it: the JVM installs no handler for a signal ignored at that moment, and
     * {@code Signal.handle} then succeeds without ever being called, so {@code systemctl reload}
     * and {@code kill -HUP} would silently do nothing. Like other daemons, jtargetd takes SIGHUP as
     * its reload request whatever it inherited: an ignored SIGHUP is set back to its default just
     * before the handler is installed (a hangup in between would end the process, as it would have
     * without nohup).
     */
    private static void unignoreHangups() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            if (Libc.signalDisposition(state, Libc.SIGHUP) == Libc.SIG_IGN
                    && Libc.signal(state, Libc.SIGHUP, Libc.SIG_DFL) == -1) {
                LOG.warn("SIGHUP is ignored and cannot be restored (errno {}): no config reload on SIGHUP",
                        Libc.errno(state));
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("cannot check whether SIGHUP is ignored ({}); config reload may not work", e.toString());
        }
    }

    /** Installs the handlers and the hook; the hook waits at most {@code hookWait} for the stop. */
    static ShutdownSignals install(Duration hookWait) {
        ShutdownSignals signals = new ShutdownSignals();
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), s -> signals.request("SIG" + s.getName()));
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                LOG.debug("cannot handle SIG{} ({}); relying on the shutdown hook", name, e.toString());
            }
        }
        unignoreHangups();
        try {
            Signal.handle(new Signal("HUP"), s -> signals.reloads.release());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            LOG.debug("cannot handle SIGHUP ({}); no config reload", e.toString());
        }
        try {
            Signal.handle(new Signal("USR1"), s -> signals.switchover());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            LOG.debug("cannot handle SIGUSR1 ({}); no HA switchover by signal", e.toString());
        }
        Thread hook = new Thread(() -> signals.hook(hookWait), "jtargetd-shutdown-hook");
        Runtime.getRuntime().addShutdownHook(hook);
        return signals;
    }

    private volatile Runnable switchover;

    @Override
    public void onSwitchover(Runnable task) {
        this.switchover = task;
    }

    private void switchover() {
        Runnable task = switchover;
        LOG.info("SIGUSR1 received: HA switchover{}", task == null ? " (not running yet: ignored)" : "");
        if (task != null) {
            Thread.ofPlatform().name("jtargetd-switchover").daemon().start(task);
        }
    }

    private void request(String why) {
        if (requested.getCount() > 0) {
            LOG.info("{} received, stopping", why);
        }
        requested.countDown();
    }

    private void hook(Duration wait) {
        request("JVM shutdown");
        try {
            if (!finished.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("stop did not finish within {} s; exiting anyway", wait.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void onReload(Runnable reload) {
        Thread.ofPlatform().name("jtargetd-reload").daemon().start(() -> {
            try {
                while (true) {
                    reloads.acquire();
                    reloads.drainPermits(); // SIGHUPs sent during one reload: one more is enough
                    reload.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Override
    public void await() throws InterruptedException {
        requested.await();
    }

    @Override
    public void stopped() {
        finished.countDown();
    }
}
