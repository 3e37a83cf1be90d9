package org.jtarget.scsi.pr;

/**
 * Persistent reservation types (SPC-4 6.15.4 table "Persistent reservation type codes"), with the
 * access each one leaves to other I_T nexuses (SPC-4 5.13.1 table 72, SBC-4 4.17).
 */
public enum PrType {
    WRITE_EXCLUSIVE(0x1, false, false, false),
    EXCLUSIVE_ACCESS(0x3, true, false, false),
    WRITE_EXCLUSIVE_REGISTRANTS_ONLY(0x5, false, true, false),
    EXCLUSIVE_ACCESS_REGISTRANTS_ONLY(0x6, true, true, false),
    WRITE_EXCLUSIVE_ALL_REGISTRANTS(0x7, false, true, true),
    EXCLUSIVE_ACCESS_ALL_REGISTRANTS(0x8, true, true, true);

    /** The TYPE code in the CDB and in READ RESERVATION / READ FULL STATUS data. */
    public final int code;
    private final boolean exclusiveAccess;
    private final boolean registrantsHaveAccess;
    private final boolean allRegistrants;

    PrType(int code, boolean exclusiveAccess, boolean registrantsHaveAccess, boolean allRegistrants) {
        this.code = code;
        this.exclusiveAccess = exclusiveAccess;
        this.registrantsHaveAccess = registrantsHaveAccess;
        this.allRegistrants = allRegistrants;
    }

    /** The type for a TYPE code, or null if SPC-4 defines none (INVALID FIELD IN CDB). */
    public static PrType fromCode(int code) {
        for (PrType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return null;
    }

    /** SPC-4 5.13.8: every registered I_T nexus is a reservation holder for these types. */
    public boolean allRegistrants() {
        return allRegistrants;
    }

    /** Registrants-only or all-registrants: the type grants access to every registered nexus. */
    public boolean registrantsHaveAccess() {
        return registrantsHaveAccess;
    }

    /** Registrants-only types only (SPC-4 5.13.11.2: releasing raises RESERVATIONS RELEASED). */
    public boolean registrantsOnly() {
        return registrantsHaveAccess && !allRegistrants;
    }

    /**
     * True if a command with {@code rule} (already resolved, never EXEMPT) from a nexus that is not
     * a reservation holder conflicts (SPC-4 table 72 / SBC-4 columns).
     */
    public boolean conflicts(ReservationRule rule, boolean registered) {
        if (rule == ReservationRule.ALLOWED || rule == ReservationRule.EXEMPT) {
            return false;
        }
        if (registrantsHaveAccess && registered) {
            return false;
        }
        return exclusiveAccess || rule != ReservationRule.MEDIUM_READ;
    }

    /** Bit for this type in the PERSISTENT RESERVATION TYPE MASK (SPC-4 6.14.4, bytes 4..5 as a u16). */
    public int typeMaskBit() {
        return switch (this) {
            case WRITE_EXCLUSIVE_ALL_REGISTRANTS -> 0x8000;
            case EXCLUSIVE_ACCESS_REGISTRANTS_ONLY -> 0x4000;
            case WRITE_EXCLUSIVE_REGISTRANTS_ONLY -> 0x2000;
            case EXCLUSIVE_ACCESS -> 0x0800;
            case WRITE_EXCLUSIVE -> 0x0200;
            case EXCLUSIVE_ACCESS_ALL_REGISTRANTS -> 0x0001;
        };
    }
}
