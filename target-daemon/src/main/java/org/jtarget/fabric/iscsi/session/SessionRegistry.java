package org.jtarget.fabric.iscsi.session;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every live session of the fabric, by TSIH, shared by all connections of all portals (hence
 * synchronized: it is touched at login and logout only, never per I/O). Allocates TSIHs
 * (RFC 7143 11.12.6: non-zero, unique among the target's live sessions).
 */
public final class SessionRegistry {

    private final Map<Integer, IscsiSession> byTsih = new HashMap<>();
    private int nextTsih = 1;
    private final LoginStatistics logins = new LoginStatistics();

    /** The logins this fabric answered. */
    public LoginStatistics logins() {
        return logins;
    }

    /** Sessions in the full feature phase now, per target name ("" for discovery sessions). */
    public synchronized Map<String, Integer> sessionsByTarget() {
        Map<String, Integer> m = new java.util.TreeMap<>();
        for (IscsiSession s : byTsih.values()) {
            if (s != null && !s.ended()) {
                m.merge(s.parameters().discovery() ? "" : s.parameters().targetName(), 1, Integer::sum);
            }
        }
        return m;
    }

    /** Reserves a fresh non-zero TSIH. */
    synchronized int allocateTsih() {
        for (int i = 0; i < 0xffff; i++) {
            int candidate = nextTsih;
            nextTsih = nextTsih == 0xffff ? 1 : nextTsih + 1;
            if (!byTsih.containsKey(candidate)) {
                byTsih.put(candidate, null);
                return candidate;
            }
        }
        throw new IllegalStateException("no free TSIH: 65535 sessions");
    }

    /** Fills a TSIH reserved by {@link #allocateTsih()}. */
    synchronized void register(IscsiSession session) {
        byTsih.put(session.tsih(), session);
    }

    /** Gives up a TSIH reserved but never registered (the login failed). */
    synchronized void unreserve(int tsih) {
        if (byTsih.get(tsih) == null) {
            byTsih.remove(tsih);
        }
    }

    synchronized void remove(IscsiSession session) {
        byTsih.remove(session.tsih(), session);
    }

    /** The session with that TSIH if it belongs to that initiator, ISID and target; else null. */
    synchronized IscsiSession find(int tsih, String initiatorName, long isid, String targetName) {
        IscsiSession s = byTsih.get(tsih);
        return s != null && s.matches(initiatorName, isid, targetName) ? s : null;
    }

    /** The live session of that initiator port on that target (RFC 7143 6.3.5 reinstatement), or null. */
    synchronized IscsiSession findByIsid(String initiatorName, long isid, String targetName) {
        for (IscsiSession s : byTsih.values()) {
            if (s != null && s.matches(initiatorName, isid, targetName)) {
                return s;
            }
        }
        return null;
    }

    /** A snapshot of every live session. */
    public synchronized List<IscsiSession> sessions() {
        List<IscsiSession> all = new ArrayList<>();
        for (IscsiSession s : byTsih.values()) {
            if (s != null) {
                all.add(s);
            }
        }
        return all;
    }
}
