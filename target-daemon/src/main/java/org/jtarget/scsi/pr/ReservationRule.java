package org.jtarget.scsi.pr;

/**
 * How a command fares while another I_T nexus holds a reservation: the reservation column of a
 * {@code CommandTable} row, so every command declares it once (DESIGN 3 "Dispatch").
 *
 * <p>Persistent reservations follow SPC-4 5.13.1 table 72 ("SPC commands that are allowed in the
 * presence of various reservations") and the SBC-4 equivalent (4.17, table "SBC commands that are
 * allowed in the presence of various reservations"). SPC-2 reservations (RESERVE(6)/(10)) conflict
 * with every command from another I_T nexus except the {@link #EXEMPT} ones (SPC-2 5.5.1).
 */
public enum ReservationRule {
    /**
     * Never conflicts, not even with an SPC-2 reservation: INQUIRY, REPORT LUNS, REQUEST SENSE,
     * PERSISTENT RESERVE IN, RELEASE(6)/(10) (SPC-2 5.5.1; a RELEASE from a non-holder is a no-op).
     */
    EXEMPT,
    /**
     * Allowed through every persistent reservation type ("Allowed" in every column: TEST UNIT
     * READY, READ CAPACITY, PERSISTENT RESERVE OUT, RESERVE whose handler checks itself);
     * conflicts with another nexus's SPC-2 reservation.
     */
    ALLOWED,
    /**
     * Reads the medium (SBC-4: READ, VERIFY, PRE-FETCH): allowed through Write Exclusive types,
     * conflicts with Exclusive Access types for non-holders (and unregistered nexuses for the
     * registrants-only / all-registrants variants).
     */
    MEDIUM_READ,
    /**
     * "Conflict" for every non-holder of Write Exclusive / Exclusive Access and for unregistered
     * nexuses of the registrants-only / all-registrants variants (writes, MODE SELECT/SENSE,
     * SYNCHRONIZE CACHE...).
     */
    CONFLICT,
    /**
     * START STOP UNIT (SBC-4 table for reservations): START = 1 with POWER CONDITION = 0 is
     * allowed, anything else is {@link #CONFLICT}.
     */
    START_STOP,
    /**
     * PREVENT ALLOW MEDIUM REMOVAL (SBC-4 table for reservations): PREVENT = 00b is allowed,
     * anything else is {@link #CONFLICT}.
     */
    PREVENT_ALLOW;

    private static final int PREVENT_BYTE = 4;
    private static final int PREVENT_MASK = 0x03;

    private static final int START_STOP_BYTE = 4;
    private static final int POWER_CONDITION_AND_START = 0xF1;
    private static final int START_ONLY = 0x01;

    /** The persistent-reservation rule for this particular CDB ({@link #START_STOP} resolved). */
    public ReservationRule resolve(byte[] cdb) {
        if (this == PREVENT_ALLOW) {
            return (cdb[PREVENT_BYTE] & PREVENT_MASK) == 0 ? ALLOWED : CONFLICT;
        }
        if (this != START_STOP) {
            return this;
        }
        return (cdb[START_STOP_BYTE] & POWER_CONDITION_AND_START) == START_ONLY ? ALLOWED : CONFLICT;
    }
}
