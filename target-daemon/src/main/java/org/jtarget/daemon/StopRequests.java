package org.jtarget.daemon;

/** How the launcher learns it should stop, and tells that it has. */
public interface StopRequests {

    /** Blocks until a stop is requested (SIGTERM, SIGINT, JVM shutdown). */
    void await() throws InterruptedException;

    /** The daemon has stopped: a shutdown hook waiting for it may return. */
    void stopped();
}
