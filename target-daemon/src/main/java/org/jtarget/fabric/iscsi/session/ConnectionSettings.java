package org.jtarget.fabric.iscsi.session;

import org.jtarget.io.LunQueueDepths;

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
 * @param queueDepths      the LU queue depths of the targets (config key {@code queue-depth}):
 *                         commands past them wait and hold their session's MaxCmdSN
 */
public record ConnectionSettings(Duration loginTimeout, Duration nopInInterval, Duration logoutGrace,
                                 LunQueueDepths queueDepths) {

    public ConnectionSettings {
        if (queueDepths == null) {
            queueDepths = LunQueueDepths.NONE;
        }
    }

    /** Without LU queue depths. */
    public ConnectionSettings(Duration loginTimeout, Duration nopInInterval, Duration logoutGrace) {
        this(loginTimeout, nopInInterval, logoutGrace, LunQueueDepths.NONE);
    }

    /** 15 s to log in, ping after 5 s of silence, 2 s to log out on shutdown, no LU queue depths. */
    public static ConnectionSettings defaults() {
        return new ConnectionSettings(Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(2));
    }

    /** The same timers with these LU queue depths. */
    public ConnectionSettings withQueueDepths(LunQueueDepths depths) {
        return new ConnectionSettings(loginTimeout, nopInInterval, logoutGrace, depths);
    }
}
