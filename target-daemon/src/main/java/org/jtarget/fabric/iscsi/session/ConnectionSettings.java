package org.jtarget.fabric.iscsi.session;

import java.time.Duration;

/**
 * Timers of one iSCSI connection (not negotiated; the target's own policy).
 *
 * @param loginTimeout     how long a connection may stay in the login phase before it is closed
 * @param nopInInterval    idle time after which the target pings the initiator with a NOP-In
 *                         (RFC 7143 11.19); if nothing at all is received during a further
 *                         interval the connection is considered dead and closed
 * @param logoutGrace      on shutdown, how long sessions get to log out after the
 *                         "target requests logout" Async Message before they are closed
 */
public record ConnectionSettings(Duration loginTimeout, Duration nopInInterval, Duration logoutGrace) {

    /** 15 s to log in, ping after 5 s of silence, 2 s to log out on shutdown. */
    public static ConnectionSettings defaults() {
        return new ConnectionSettings(Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(2));
    }
}
