package org.jtarget.it;

import java.io.IOException;
import org.jtarget.initiator.raw.RawIscsiClient;

/**
 * Pings an idle raw initiator every half second on a thread of its own: the raw client answers
 * the target's NOP-Ins only while it reads, and the target closes a session that leaves two
 * unanswered, which a slow step of a test (a JVM start per jtargetctl command on a busy host) can
 * take. The test must not use the initiator itself until {@link #close}.
 */
final class InitiatorKeepAlive implements AutoCloseable {

    private final Thread thread;

    private InitiatorKeepAlive(RawIscsiClient initiator) {
        thread = Thread.ofPlatform().daemon().start(() -> pingUntilInterrupted(initiator));
    }

    static InitiatorKeepAlive start(RawIscsiClient initiator) {
        return new InitiatorKeepAlive(initiator);
    }

    private static void pingUntilInterrupted(RawIscsiClient initiator) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                initiator.ping();
                Thread.sleep(500);
            }
        } catch (IOException | InterruptedException ended) {
            // stopped, or the connection ended (a kicked session): the test sees that next
        }
    }

    /** Stops pinging and waits until the thread is done with the initiator. */
    @Override
    public void close() throws InterruptedException {
        thread.interrupt();
        thread.join(10_000);
    }
}
