package org.jtarget.daemon;

/** How the launcher learns it should stop (or reload its config), and tells that it has stopped. */
public interface StopRequests {

    /**
     * Runs {@code reload} on each reload request (SIGHUP) from now on, one at a time; requests
     * that arrive while one runs are merged into the next run. Without it a request does nothing.
     */
    default void onReload(Runnable reload) {
    }

    /** Runs {@code switchover} on each switchover request (SIGUSR1: an HA primary hands over). */
    default void onSwitchover(Runnable switchover) {
    }

    /** Blocks until a stop is requested (SIGTERM, SIGINT, JVM shutdown). */
    void await() throws InterruptedException;

    /** The daemon has stopped: a shutdown hook waiting for it may return. */
    void stopped();
}
