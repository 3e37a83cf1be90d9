package org.jtarget.fabric.iscsi.session;

import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.scsi.lun.TransferCounters;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every live session of the fabric, by TSIH, shared by all connections of all portals (hence
 * synchronized: it is touched at login and logout only, never per I/O). Allocates TSIHs
 * (RFC 7143 11.12.6: non-zero, unique among the target's live sessions).
 */
public final class SessionRegistry {

    private final Map<Integer, IscsiSession> byTsih = new HashMap<>();
    private int nextTsih = 1;
    private final LoginStatistics logins = new LoginStatistics();
    private final Map<String, PortalTraffic> portals = new ConcurrentHashMap<>();

    /**
     * What the sessions carried through one portal since the daemon started.
     *
     * @param portal    the portal's config name
     * @param transport {@code tcp} or {@code iser}
     */
    public record PortalTraffic(String portal, String transport, TransferCounters counters) {
    }

    /** The logins this fabric answered. */
    public LoginStatistics logins() {
        return logins;
    }

    /**
     * What one live normal session carried, with what identifies it.
     *
     * @param tsih   the session's TSIH, also its id in the management API
     * @param portal the portal it logged in through
     */
    public record SessionTraffic(String target, String initiator, long isid, int tsih, String portal,
                                 TransferCounters counters) {
    }

    /** Every live normal session's counters (discovery sessions carry no SCSI commands). */
    public synchronized List<SessionTraffic> sessionTraffic() {
        List<SessionTraffic> all = new ArrayList<>();
        for (IscsiSession s : byTsih.values()) {
            if (s != null && !s.ended() && !s.discovery()) {
                all.add(new SessionTraffic(s.target().name(), s.parameters().initiatorName(), s.isid(), s.tsih(),
                        s.portal(), s.counters()));
            }
        }
        return all;
    }

    /**
     * The counters of a portal, made at its first connection (never per I/O). They outlive a
     * portal that a reload removes, as counters should; portals are few, named by the config.
     */
    PortalTraffic portalTraffic(IscsiPortalDefinition portal) {
        return portals.computeIfAbsent(portal.name(),
                name -> new PortalTraffic(name, portal.rdma() ? "iser" : "tcp", new TransferCounters()));
    }

    /** Every portal that has had a connection, by name. */
    public List<PortalTraffic> portalTraffic() {
        return portals.values().stream().sorted(java.util.Comparator.comparing(PortalTraffic::portal)).toList();
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
