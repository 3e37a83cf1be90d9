package org.jtarget.scsi.pr;

import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.cdb.Opcodes;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.TransportId;
import org.jtarget.scsi.spi.TransportIds;

import java.util.ArrayList;
import java.util.List;

/**
 * The PERSISTENT RESERVE OUT service actions (SPC-4 5.13.7-5.13.11, 6.15), applied to one LU's
 * {@link Reservations} while the caller holds its lock. Outcomes go to the command context:
 * RESERVATION CONFLICT, a CHECK CONDITION, or nothing (GOOD).
 * <pre>
 * basic parameter list (6.15.3): 0..7 RESERVATION KEY | 8..15 SERVICE ACTION RESERVATION KEY
 *     | 20 SPEC_I_PT(3) ALL_TG_PT(2) APTPL(0) | 24..27 TRANSPORTID PARAMETER DATA LENGTH (SPEC_I_PT) | 28.. TransportIDs
 * REGISTER AND MOVE (6.15.4): 0..7 RESERVATION KEY | 8..15 SERVICE ACTION RESERVATION KEY
 *     | 17 UNREG(1) APTPL(0) | 18..19 RELATIVE TARGET PORT IDENTIFIER | 20..23 TRANSPORTID LENGTH | 24.. TransportID
 * </pre>
 */
final class PrOutServiceActions {

    private static final int KEY_OFFSET = 0;
    private static final int SA_KEY_OFFSET = 8;
    private static final int FLAGS_OFFSET = 20;
    private static final int SPEC_I_PT = 0x08;
    private static final int ALL_TG_PT = 0x04;
    private static final int APTPL = 0x01;
    private static final int TRANSPORTID_LENGTH_OFFSET = 24;
    private static final int TRANSPORTIDS_OFFSET = 28;
    private static final int MOVE_FLAGS_OFFSET = 17;
    private static final int MOVE_UNREG = 0x02;
    private static final int MOVE_PORT_OFFSET = 18;
    private static final int MOVE_TRANSPORTID_LENGTH_OFFSET = 20;
    private static final int MOVE_TRANSPORTID_OFFSET = 24;

    private final CommandContext ctx;
    private final Reservations r;
    private final byte[] list;
    private final PrType type;
    private final ITNexus nexus;
    private final long key;
    private final long saKey;

    PrOutServiceActions(CommandContext ctx, Reservations r, byte[] list, PrType type) {
        this.ctx = ctx;
        this.r = r;
        this.list = list;
        this.type = type;
        this.nexus = ctx.cmd().nexus();
        this.key = Cdb.u64(list, KEY_OFFSET);
        this.saKey = Cdb.u64(list, SA_KEY_OFFSET);
    }

    void run(int serviceAction) {
        r.seen(nexus);
        if (r.spc2HeldByOther(nexus)) {
            ctx.reservationConflict(); // SPC-4 5.13.3 (CRH = 0): SPC-2 reservation held by another nexus
            return;
        }
        if (serviceAction != Opcodes.SA_REGISTER_AND_MOVE && !checkBasicList(serviceAction)) {
            return;
        }
        switch (serviceAction) {
            case Opcodes.SA_REGISTER -> register(false);
            case Opcodes.SA_REGISTER_AND_IGNORE_EXISTING_KEY -> register(true);
            case Opcodes.SA_RESERVE -> reserve();
            case Opcodes.SA_RELEASE -> release();
            case Opcodes.SA_CLEAR -> clear();
            case Opcodes.SA_PREEMPT -> preempt(false);
            case Opcodes.SA_PREEMPT_AND_ABORT -> preempt(true);
            default -> registerAndMove();
        }
    }

    /** SPC-4 6.15.3: 24 bytes unless SPEC_I_PT; SPEC_I_PT only with REGISTER. */
    private boolean checkBasicList(int serviceAction) {
        boolean specIPt = (list[FLAGS_OFFSET] & SPEC_I_PT) != 0;
        if (specIPt && serviceAction != Opcodes.SA_REGISTER) {
            return fail(ctx.invalidParameterField(FLAGS_OFFSET, 3));
        }
        if (!specIPt && list.length != SpcPersistentReserveOut.BASIC_LENGTH) {
            return fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        return true;
    }

    private boolean fail(SenseReason reason) {
        ctx.fail(reason);
        return false;
    }

    private boolean conflict() {
        ctx.reservationConflict();
        return false;
    }

    /** The issuer's registration if RESERVATION KEY matches it; else RESERVATION CONFLICT and null. */
    private Registration checkedRegistration() {
        Registration mine = r.registrationOf(nexus);
        if (mine == null || mine.key() != key) {
            conflict();
            return null;
        }
        return mine;
    }

    // ---- REGISTER, REGISTER AND IGNORE EXISTING KEY (SPC-4 5.13.7) ----

    private void register(boolean ignoreKey) {
        boolean specIPt = (list[FLAGS_OFFSET] & SPEC_I_PT) != 0;
        boolean aptpl = (list[FLAGS_OFFSET] & APTPL) != 0;
        if (aptpl && !r.persistenceCapable()) {
            fail(ctx.invalidParameterField(FLAGS_OFFSET, 0)); // PTPL_C = 0
            return;
        }
        Registration mine = r.registrationOf(nexus);
        if (mine == null) {
            if (!ignoreKey && key != 0) {
                conflict();
            } else if (saKey != 0 && registerNew(specIPt)) {
                changed(aptpl);
            }
            return;
        }
        if (!ignoreKey && key != mine.key()) {
            conflict();
        } else if (specIPt) {
            fail(ctx.invalidParameterField(FLAGS_OFFSET, 3)); // SPC-4 5.13.7.? already registered
        } else {
            if (saKey == 0) {
                r.unregister(mine, nexus);
            } else {
                replaceKey(mine, saKey);
            }
            changed(aptpl);
        }
    }

    private boolean registerNew(boolean specIPt) {
        boolean allTgPt = (list[FLAGS_OFFSET] & ALL_TG_PT) != 0;
        int port = nexus.relativeTargetPortId();
        List<Registration> add = new ArrayList<>();
        add.add(new Registration(nexus.protocol(), nexus.initiatorPortName(), port, allTgPt, saKey));
        if (specIPt && !addSpecifiedPorts(add, port, allTgPt)) {
            return false;
        }
        r.registrations.addAll(add);
        return true;
    }

    /** SPEC_I_PT (SPC-4 5.13.7.?): registers every initiator port named by the TransportIDs too. */
    private boolean addSpecifiedPorts(List<Registration> add, int port, boolean allTgPt) {
        if (list.length < TRANSPORTIDS_OFFSET) {
            return fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        long idLength = Cdb.u32(list, TRANSPORTID_LENGTH_OFFSET);
        if (TRANSPORTIDS_OFFSET + idLength > list.length) {
            return fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int end = TRANSPORTIDS_OFFSET + (int) idLength;
        for (int p = TRANSPORTIDS_OFFSET; p < end; ) {
            int n = TransportIds.length(list, p, end);
            if (n < 0) {
                return fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            }
            TransportId id = TransportIds.decode(list, p, n, nexus.protocol());
            if (id == null || registered(id.portName(), port) != null) {
                return fail(ctx.invalidParameterField(p, SenseBuilder.NONE));
            }
            String name = id.portName();
            if (!name.equalsIgnoreCase(nexus.initiatorPortName()) && !listed(add, name)) {
                add.add(new Registration(id.protocol(), name, port, allTgPt, saKey));
            }
            p += n;
        }
        return true;
    }

    private static boolean listed(List<Registration> add, String name) {
        for (Registration a : add) {
            if (a.initiatorPortName().equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** The registration of initiator port {@code name} on target port {@code port}, or null. */
    private Registration registered(String name, int port) {
        for (Registration reg : r.registrations) {
            if ((reg.allTargetPorts() || reg.relativeTargetPortId() == port) && reg.coversPort(name)) {
                return reg;
            }
        }
        return null;
    }

    private void replaceKey(Registration old, long newKey) {
        Registration updated = old.withKey(newKey);
        r.registrations.set(r.registrations.indexOf(old), updated);
        if (r.holder == old) {
            r.holder = updated;
        }
    }

    /** A successful registration-changing action: PRgeneration, APTPL, persistence (SPC-4 5.13.5, 6.14.2). */
    private void changed(boolean aptpl) {
        r.aptpl = aptpl;
        bumpAndPersist();
    }

    private void bumpAndPersist() {
        r.generation++;
        persist();
    }

    private void persist() {
        if (!r.persist()) {
            ctx.fail(SenseReason.INTERNAL_TARGET_FAILURE);
        }
    }

    // ---- RESERVE, RELEASE, CLEAR (SPC-4 5.13.9, 5.13.11.2, 5.13.11.3) ----

    private void reserve() {
        Registration mine = checkedRegistration();
        if (mine == null) {
            return;
        }
        if (r.type != null) {
            if (!r.isHolder(nexus) || r.type != type) {
                conflict(); // another holder, or a TYPE change by the holder (SPC-4 5.13.9)
            }
            return;
        }
        r.reserve(mine, type);
        persist();
    }

    private void release() {
        if (checkedRegistration() == null || r.type == null || !r.isHolder(nexus)) {
            return; // SPC-4 5.13.11.2: nothing to release is GOOD
        }
        if (r.type != type) {
            ctx.fail(SenseReason.INVALID_RELEASE_OF_PERSISTENT_RESERVATION);
            return;
        }
        PrType old = r.type;
        r.releaseReservation();
        if (old.registrantsHaveAccess()) {
            for (Registration reg : r.registrations) {
                r.raiseFor(reg, nexus, SenseReason.RESERVATIONS_RELEASED);
            }
        }
        persist();
    }

    private void clear() {
        if (checkedRegistration() == null) {
            return;
        }
        for (Registration reg : r.registrations) {
            r.raiseFor(reg, nexus, SenseReason.RESERVATIONS_PREEMPTED);
        }
        r.registrations.clear();
        r.releaseReservation();
        bumpAndPersist();
    }

    // ---- PREEMPT, PREEMPT AND ABORT (SPC-4 5.13.11.4, 5.13.11.5) ----

    private void preempt(boolean abort) {
        Registration mine = checkedRegistration();
        if (mine == null) {
            return;
        }
        boolean allRegistrants = r.type != null && r.type.allRegistrants();
        if (saKey == 0 && !allRegistrants) {
            fail(ctx.invalidParameterField(SA_KEY_OFFSET, SenseBuilder.NONE));
            return;
        }
        List<Registration> removed;
        if (allRegistrants && saKey == 0) {
            removed = removeAllBut(mine);
            r.reserve(mine, type);
        } else if (r.type != null && !allRegistrants && saKey == r.holder.key()) {
            removed = preemptHolder(mine);
        } else {
            removed = removeByKey(saKey, mine);
            if (removed.isEmpty()) {
                conflict(); // SPC-4 5.13.11.4.?: the key names no registrant
                return;
            }
        }
        for (Registration reg : removed) {
            r.raiseFor(reg, nexus, SenseReason.REGISTRATIONS_PREEMPTED);
            if (abort) {
                abortTasksOf(reg);
            }
        }
        bumpAndPersist();
    }

    /** SARK names the holder: take its registrations away and reserve with this CDB's type. */
    private List<Registration> preemptHolder(Registration mine) {
        PrType old = r.type;
        List<Registration> removed = removeByKey(saKey, mine);
        r.reserve(mine, type);
        if (old != type) {
            // SPC-4 5.13.11.4.3: a changed type is a release for the remaining registrants
            for (Registration reg : r.registrations) {
                r.raiseFor(reg, nexus, SenseReason.RESERVATIONS_RELEASED);
            }
        }
        return removed;
    }

    private List<Registration> removeByKey(long k, Registration keep) {
        List<Registration> removed = new ArrayList<>();
        for (Registration reg : r.registrations) {
            if (reg.key() == k && reg != keep) {
                removed.add(reg);
            }
        }
        // removed without the release side effects of unregistering: the caller decides the reservation
        r.registrations.removeIf(reg -> reg.key() == k && reg != keep);
        if (r.holder != null && !r.registrations.contains(r.holder)) {
            r.releaseReservation();
        }
        return removed;
    }

    private List<Registration> removeAllBut(Registration keep) {
        List<Registration> removed = new ArrayList<>(r.registrations);
        removed.remove(keep);
        r.registrations.removeAll(removed);
        return removed;
    }

    /** SPC-4 5.13.11.5: the preempted nexuses' tasks are aborted as by ABORT TASK SET. */
    private void abortTasksOf(Registration reg) {
        for (ITNexus n : r.nexusesOf(reg)) {
            if (!n.equals(nexus)) {
                ctx.lu().taskSet().abort(n, false, 0, null);
            }
        }
    }

    // ---- REGISTER AND MOVE (SPC-4 5.13.10, 6.15.4) ----

    private void registerAndMove() {
        Registration mine = checkedRegistration();
        if (mine == null) {
            return;
        }
        if (r.type == null || !r.isHolder(nexus) || r.type.allRegistrants()) {
            conflict();
            return;
        }
        if (saKey == 0) {
            fail(ctx.invalidParameterField(SA_KEY_OFFSET, SenseBuilder.NONE));
            return;
        }
        long idLength = Cdb.u32(list, MOVE_TRANSPORTID_LENGTH_OFFSET);
        int n = TransportIds.length(list, MOVE_TRANSPORTID_OFFSET, list.length);
        if (MOVE_TRANSPORTID_OFFSET + idLength > list.length || n < 0 || n > idLength) {
            fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return;
        }
        TransportId id = TransportIds.decode(list, MOVE_TRANSPORTID_OFFSET, n, nexus.protocol());
        String name = id == null ? null : id.portName();
        int port = Cdb.u16(list, MOVE_PORT_OFFSET);
        boolean aptpl = (list[MOVE_FLAGS_OFFSET] & APTPL) != 0;
        if (!checkMoveTarget(name, port, aptpl)) {
            return;
        }
        Registration dest = registered(name, port);
        if (dest == null) {
            dest = new Registration(id.protocol(), name, port, false, saKey);
            r.registrations.add(dest);
        } else {
            replaceKey(dest, saKey);
            dest = registered(name, port);
        }
        r.reserve(dest, type);
        if ((list[MOVE_FLAGS_OFFSET] & MOVE_UNREG) != 0) {
            r.registrations.remove(mine);
        }
        changed(aptpl);
    }

    private boolean checkMoveTarget(String name, int port, boolean aptpl) {
        if (name == null) {
            return fail(ctx.invalidParameterField(MOVE_TRANSPORTID_OFFSET, SenseBuilder.NONE));
        }
        if (port != nexus.relativeTargetPortId() && !r.knowsTargetPort(port)) {
            return fail(ctx.invalidParameterField(MOVE_PORT_OFFSET, SenseBuilder.NONE));
        }
        if (port == nexus.relativeTargetPortId() && name.equalsIgnoreCase(nexus.initiatorPortName())) {
            return fail(ctx.invalidParameterField(MOVE_TRANSPORTID_OFFSET, SenseBuilder.NONE));
        }
        if (aptpl && !r.persistenceCapable()) {
            return fail(ctx.invalidParameterField(MOVE_FLAGS_OFFSET, 0));
        }
        return true;
    }
}
