package org.jtarget.scsi.ua;

import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Pending unit attention conditions of one logical unit, one queue per I_T nexus (SAM-5 5.14).
 * A condition is reported, and cleared, by the next command from that nexus that is not exempt
 * (INQUIRY, REPORT LUNS and REQUEST SENSE do not report it; REQUEST SENSE returns it as its
 * parameter data). Raising is a control-path event; the per-command check is one volatile read
 * when nothing is pending.
 */
public final class UnitAttentions {

    /** SAM-5 leaves the depth to the device; older conditions stay, duplicates are merged. */
    private static final int MAX_QUEUED = 8;

    private final Map<ITNexus, ArrayDeque<SenseReason>> byNexus = new HashMap<>();
    private volatile int pendingTotal;

    /**
     * A new I_T nexus starts with no unit attention. SAM-5 6.3.1 establishes POWER ON, RESET, OR
     * BUS DEVICE RESET OCCURRED for the I_T nexuses that exist at power on; an iSCSI nexus made by
     * a later login is not one of them (LIO behaves the same way), and initiators that do not
     * retry a unit attention on their first command (jSCSI) depend on it.
     */
    public synchronized void nexusAdded(ITNexus nexus) {
        byNexus.putIfAbsent(nexus, new ArrayDeque<>());
    }

    /** The nexus is gone: its conditions are dropped. */
    public synchronized void nexusRemoved(ITNexus nexus) {
        ArrayDeque<SenseReason> q = byNexus.remove(nexus);
        if (q != null) {
            pendingTotal -= q.size();
        }
    }

    /** Raises {@code reason} for one nexus. */
    public synchronized void raise(ITNexus nexus, SenseReason reason) {
        ArrayDeque<SenseReason> q = byNexus.computeIfAbsent(nexus, n -> new ArrayDeque<>());
        offer(q, reason);
    }

    /** Raises {@code reason} for every known nexus except {@code except} (may be null). */
    public synchronized void raiseAllExcept(ITNexus except, SenseReason reason) {
        for (Map.Entry<ITNexus, ArrayDeque<SenseReason>> e : byNexus.entrySet()) {
            if (!e.getKey().equals(except)) {
                offer(e.getValue(), reason);
            }
        }
    }

    /** Raises {@code reason} for every known nexus. */
    public void raiseAll(SenseReason reason) {
        raiseAllExcept(null, reason);
    }

    /** Takes the oldest pending condition of {@code nexus}, or null (cheap when none is pending). */
    public SenseReason poll(ITNexus nexus) {
        if (pendingTotal == 0 || nexus == null) {
            return null;
        }
        synchronized (this) {
            ArrayDeque<SenseReason> q = byNexus.get(nexus);
            SenseReason r = q == null ? null : q.pollFirst();
            if (r != null) {
                pendingTotal--;
            }
            return r;
        }
    }

    /** True if {@code nexus} has a condition pending. */
    public synchronized boolean hasPending(ITNexus nexus) {
        ArrayDeque<SenseReason> q = byNexus.get(nexus);
        return q != null && !q.isEmpty();
    }

    private void offer(ArrayDeque<SenseReason> q, SenseReason reason) {
        if (q.contains(reason) || q.size() >= MAX_QUEUED) {
            return;
        }
        q.addLast(reason);
        pendingTotal++;
    }
}
