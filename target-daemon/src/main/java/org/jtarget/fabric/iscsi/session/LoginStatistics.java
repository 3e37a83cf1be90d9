package org.jtarget.fabric.iscsi.session;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The logins an iSCSI fabric has answered since it started: accepted ones by session type, refused
 * ones by their Status-Class and Status-Detail (RFC 7143 11.13.5, e.g. 0x0201 authentication
 * failure, 0x0202 not authorized, 0x0203 target not found), for the metrics endpoint.
 */
public final class LoginStatistics {

    private final LongAdder normal = new LongAdder();
    private final LongAdder discovery = new LongAdder();
    private final Map<Integer, LongAdder> refused = new ConcurrentHashMap<>();

    void countAccepted(boolean discoverySession) {
        (discoverySession ? discovery : normal).increment();
    }

    /** @param status Status-Class &lt;&lt; 8 | Status-Detail */
    void countRefused(int status) {
        refused.computeIfAbsent(status, s -> new LongAdder()).increment();
    }

    /** Logins that reached the full feature phase, of discovery or of normal sessions. */
    public long accepted(boolean discoverySession) {
        return (discoverySession ? discovery : normal).sum();
    }

    /** Refused logins by status (class &lt;&lt; 8 | detail), in ascending order. */
    public Map<Integer, Long> refused() {
        Map<Integer, Long> m = new TreeMap<>();
        refused.forEach((status, n) -> m.put(status, n.sum()));
        return m;
    }
}
