package org.jtarget.scsi.pr;

import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.ua.UnitAttentions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The reservation state of one logical unit: the SPC-2 reservation (RESERVE(6)/(10)) and the
 * persistent reservation state (SPC-4 5.13: registrations, the reservation, PRgeneration, APTPL).
 * Every access is under this object's lock except the gate's fast path: while no reservation of
 * either kind exists, {@link #conflicts} is one volatile read.
 *
 * <p>Compatible reservation handling (SPC-4 5.13.3) is not offered (CRH = 0): RESERVE and RELEASE
 * conflict with any persistent reservation state, and PERSISTENT RESERVE OUT conflicts with an
 * SPC-2 reservation held by another I_T nexus.
 */
public final class Reservations {

    private static final Logger log = LoggerFactory.getLogger(Reservations.class);

    private final UnitAttentions unitAttentions;
    private final PrStateFile stateFile;
    /** Live I_T nexuses (for unit attentions and PREEMPT AND ABORT). */
    private final Set<ITNexus> nexuses = new LinkedHashSet<>();
    final List<Registration> registrations = new ArrayList<>();
    /** The reservation holder's registration; unused for all-registrants types. */
    Registration holder;
    /** The persistent reservation's type, or null if there is none. */
    PrType type;
    int generation;
    boolean aptpl;
    private ITNexus spc2Holder;
    private volatile boolean active;

    /**
     * @param unitAttentions the LU's unit attentions (RESERVATIONS PREEMPTED etc. go there)
     * @param stateFile      where APTPL state lives, or null if persist through power loss is not offered
     */
    public Reservations(UnitAttentions unitAttentions, PrStateFile stateFile) {
        this.unitAttentions = unitAttentions;
        this.stateFile = stateFile;
        if (stateFile != null) {
            try {
                if (stateFile.load(this)) {
                    log.info("restored persistent reservations from {}", stateFile.path());
                }
            } catch (IOException | RuntimeException e) {
                log.error("cannot read persistent reservation state {}; starting without it", stateFile.path(), e);
                registrations.clear();
                holder = null;
                type = null;
                aptpl = false;
            }
        }
        updateActive();
    }

    /** True if this LU can persist reservations through power loss (PTPL_C, SPC-4 6.14.4). */
    public boolean persistenceCapable() {
        return stateFile != null;
    }

    // ---- the whole state, for the peer of an HA pair ----

    /** Registrations, reservation, APTPL and PRgeneration as one record ({@link PrStateRecord}). */
    public synchronized byte[] stateRecord() {
        return PrStateRecord.encode(this);
    }

    /**
     * Replaces registrations, reservation, APTPL and PRgeneration with a record's (the HA peer's
     * state, or this node's own before a change that could not be replicated), and keeps them
     * through power loss as APTPL says. The SPC-2 reservation and the live nexuses stay.
     *
     * @throws IOException when the record cannot be read, or APTPL state cannot be written
     */
    public synchronized void installStateRecord(byte[] record) throws IOException {
        PrStateRecord.State s = PrStateRecord.decode(record);
        registrations.clear();
        registrations.addAll(s.registrations());
        releaseReservation();
        if (s.type() != null) {
            reserve(s.type().allRegistrants() ? null : registrations.get(s.holderIndex()), s.type());
        }
        generation = s.generation();
        aptpl = s.aptpl();
        if (!persist()) {
            throw new IOException("cannot write persistent reservation state " + stateFile.path());
        }
    }

    // ---- the gate ----

    /**
     * True if a command with {@code rule} from {@code nexus} must end with RESERVATION CONFLICT
     * (SPC-2 5.5.1 for SPC-2 reservations; SPC-4 table 72 / SBC-4 for persistent ones).
     */
    public boolean conflicts(ITNexus nexus, ReservationRule rule, byte[] cdb) {
        if (!active || rule == ReservationRule.EXEMPT || nexus == null) {
            return false;
        }
        synchronized (this) {
            if (spc2Holder != null) {
                return !spc2Holder.equals(nexus);
            }
            if (type == null || isHolder(nexus)) {
                return false;
            }
            return type.conflicts(rule.resolve(cdb), registrationOf(nexus) != null);
        }
    }

    // ---- nexus events ----

    /** A new I_T nexus exists. */
    public synchronized void nexusAdded(ITNexus nexus) {
        nexuses.add(nexus);
    }

    /** SPC-2 5.5.1 / SAM-5 6.3.4: I_T nexus loss releases that nexus's SPC-2 reservation. */
    public synchronized void nexusRemoved(ITNexus nexus) {
        nexuses.remove(nexus);
        if (nexus.equals(spc2Holder)) {
            spc2Holder = null;
            updateActive();
        }
    }

    /** LOGICAL UNIT RESET / target reset (SPC-2 5.5.1): the SPC-2 reservation is released. */
    public synchronized void reset() {
        spc2Holder = null;
        updateActive();
    }

    // ---- SPC-2 RESERVE / RELEASE ----

    /**
     * RESERVE(6)/(10) of the whole LU (SPC-2 7.21). CRH = 0: any registration or persistent
     * reservation makes it a conflict (SPC-4 5.13.3).
     *
     * @return false for RESERVATION CONFLICT
     */
    public synchronized boolean reserveSpc2(ITNexus nexus) {
        nexuses.add(nexus);
        if (!registrations.isEmpty() || type != null) {
            return false;
        }
        if (spc2Holder != null && !spc2Holder.equals(nexus)) {
            return false;
        }
        spc2Holder = nexus;
        updateActive();
        return true;
    }

    /**
     * RELEASE(6)/(10) (SPC-2 7.19): releases the nexus's own reservation; from another nexus it
     * is a no-op with GOOD status. CRH = 0: conflicts with persistent reservation state.
     *
     * @return false for RESERVATION CONFLICT
     */
    public synchronized boolean releaseSpc2(ITNexus nexus) {
        if (!registrations.isEmpty() || type != null) {
            return false;
        }
        if (nexus.equals(spc2Holder)) {
            spc2Holder = null;
            updateActive();
        }
        return true;
    }

    /** True if another nexus holds an SPC-2 reservation (PERSISTENT RESERVE OUT then conflicts). */
    public synchronized boolean spc2HeldByOther(ITNexus nexus) {
        return spc2Holder != null && !spc2Holder.equals(nexus);
    }

    // ---- persistent reservation state, for the PR handlers (callers hold the lock) ----

    /** The registration covering {@code nexus}, or null. */
    Registration registrationOf(ITNexus nexus) {
        for (Registration r : registrations) {
            if (r.matches(nexus)) {
                return r;
            }
        }
        return null;
    }

    /** SPC-4 5.13.8: the holder, or any registrant for all-registrants types. */
    boolean isHolder(ITNexus nexus) {
        if (type == null) {
            return false;
        }
        Registration r = registrationOf(nexus);
        return r != null && (type.allRegistrants() || r == holder);
    }

    /** True if {@code r} is (one of) the reservation holder(s). */
    boolean holds(Registration r) {
        return type != null && (type.allRegistrants() || r == holder);
    }

    /** Records a nexus seen on a PR command (it may have logged in before this LU existed). */
    void seen(ITNexus nexus) {
        nexuses.add(nexus);
    }

    /** The live nexuses covered by {@code r}. */
    List<ITNexus> nexusesOf(Registration r) {
        List<ITNexus> out = new ArrayList<>();
        for (ITNexus n : nexuses) {
            if (r.matches(n)) {
                out.add(n);
            }
        }
        return out;
    }

    /** True if some live nexus uses relative target port {@code id} (REGISTER AND MOVE target). */
    boolean knowsTargetPort(int id) {
        for (ITNexus n : nexuses) {
            if (n.relativeTargetPortId() == id) {
                return true;
            }
        }
        return false;
    }

    /** Raises {@code ua} for every live nexus covered by {@code r}, except {@code except}. */
    void raiseFor(Registration r, ITNexus except, SenseReason ua) {
        for (ITNexus n : nexusesOf(r)) {
            if (!n.equals(except)) {
                unitAttentions.raise(n, ua);
            }
        }
    }

    /** Removes a registration; SPC-4 5.13.11.2.? releases the reservation if it was the last holder. */
    void unregister(Registration r, ITNexus issuer) {
        registrations.remove(r);
        if (type == null) {
            return;
        }
        boolean released = type.allRegistrants() ? registrations.isEmpty() : r == holder;
        if (released) {
            PrType old = type;
            releaseReservation();
            if (old.registrantsOnly()) {
                // SPC-4 5.13.11.2.3 / 6.16.2: registrants-only release by unregistering tells the others
                for (Registration other : registrations) {
                    raiseFor(other, issuer, SenseReason.RESERVATIONS_RELEASED);
                }
            }
        }
    }

    void releaseReservation() {
        type = null;
        holder = null;
        updateActive();
    }

    void reserve(Registration r, PrType t) {
        type = t;
        holder = t.allRegistrants() ? null : r;
        updateActive();
    }

    /**
     * Writes the state when APTPL is in force, or deletes the file when it is not (SPC-4 5.13.5).
     *
     * @return false if the state could not be written
     */
    boolean persist() {
        if (stateFile == null) {
            return true;
        }
        try {
            if (aptpl) {
                stateFile.write(this);
            } else {
                stateFile.delete();
            }
            return true;
        } catch (IOException e) {
            log.error("cannot write persistent reservation state {}", stateFile.path(), e);
            return false;
        }
    }

    void updateActive() {
        active = spc2Holder != null || type != null;
    }
}
