package org.jtarget.scsi.dispatch;

import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.pr.ReservationRule;

import java.util.HexFormat;

/**
 * One row of the {@link CommandTable} (DESIGN 3 "Dispatch").
 *
 * @param opcode         operation code
 * @param serviceAction  service action (CDB byte 1 bits 4..0) for a service-action row, else -1
 * @param name           T10 name, for logs
 * @param cdbLength      CDB length; the control byte is its last byte (SAM-5 5.2)
 * @param handler        parser and executor, or null for a row that only holds service actions
 * @param flags          {@link #NO_LUN_OK}, {@link #UA_EXEMPT}, {@link #MEDIUM_IO}, {@link #WRITES_MEDIUM},
 *                       {@link #RANGE_SHARED}, {@link #RANGE_EXCLUSIVE}, {@link #OFF_LOOP},
 *                       {@link #NEEDS_UNMAP}, {@link #NEEDS_MEDIUM}, {@link #NEEDS_CRYPTO_ERASE}, {@link #NEEDS_EXPLICIT_ALUA}; and the ALUA column: {@link #ALUA_STANDBY},
 *                       {@link #ALUA_UNAVAILABLE}, {@link #ALUA_ANY_STATE} (none: only in the
 *                       active states)
 * @param reservation    how the command fares under another nexus's reservation (SPC-4 table 72,
 *                       SBC-4 4.17, SPC-2 5.5.1); null only for a holder row
 * @param cdbUsage       the CDB USAGE DATA bit map (SPC-4 6.35.3): byte 0 the opcode, byte 1 the
 *                       service action for service-action rows, every other bit set to one iff the
 *                       handler honours it; exactly {@code cdbLength} bytes (null for a holder row)
 * @param serviceActions 32 rows by SERVICE ACTION (CDB byte 1 bits 4..0), or null
 */
public record OpcodeEntry(int opcode, int serviceAction, String name, int cdbLength, CommandHandler handler,
                          int flags, ReservationRule reservation, byte[] cdbUsage, OpcodeEntry[] serviceActions) {

    /** Allowed on a LUN with no logical unit (SPC-4 4.x: INQUIRY, REPORT LUNS, REQUEST SENSE). */
    public static final int NO_LUN_OK = 1;
    /** Neither reports nor clears a unit attention (SAM-5 5.14 / SPC-4 5.x). */
    public static final int UA_EXEMPT = 1 << 1;
    /** Does store I/O: runs on the LU's I/O executor unless the store is non-blocking. */
    public static final int MEDIUM_IO = 1 << 2;
    /** Modifies the medium: refused with DATA PROTECT on a read-only LU. */
    public static final int WRITES_MEDIUM = 1 << 3;
    /**
     * Touches the LBA range [lba, lba + blocks) of the context: waits while an overlapping
     * {@link #RANGE_EXCLUSIVE} command holds it (SBC-4 5.3: COMPARE AND WRITE is atomic).
     */
    public static final int RANGE_SHARED = 1 << 4;
    /** Read-compare/modify-write: holds its LBA range alone while it executes. */
    public static final int RANGE_EXCLUSIVE = 1 << 5;
    /**
     * May block (fsync of persistent reservation state): always executes on the LU's I/O
     * executor, never on an event loop (DESIGN 4.3), whatever the store.
     */
    public static final int OFF_LOOP = 1 << 6;
    /**
     * Exists only on a logical unit whose store deallocates ({@code Backstore.supportsUnmap()}):
     * logical block provisioning management, LBPME = 1 (SBC-4 4.7.3, 5.20.2). Elsewhere the gate
     * answers INVALID COMMAND OPERATION CODE and REPORT SUPPORTED OPERATION CODES leaves it out.
     */
    public static final int NEEDS_UNMAP = 1 << 7;
    /**
     * Needs a ready medium (SBC-4 4.11, 4.15, 4.20): refused with NOT READY while the medium is
     * ejected, the LU is offline or a sanitize runs, and with SANITIZE COMMAND FAILED in sanitize
     * failure mode. Commands without it are refused only by a running sanitize, unless they are
     * {@link #NO_LUN_OK} (INQUIRY, REPORT LUNS, REQUEST SENSE).
     */
    public static final int NEEDS_MEDIUM = 1 << 8;
    /**
     * Exists only on a logical unit whose store encrypts with a replaceable key
     * ({@code Backstore.supportsCryptoErase()}): SANITIZE CRYPTOGRAPHIC ERASE (SBC-4 5.30.3).
     * Elsewhere INVALID FIELD IN CDB, and REPORT SUPPORTED OPERATION CODES leaves it out.
     */
    public static final int NEEDS_CRYPTO_ERASE = 1 << 9;
    /**
     * Exists only where initiators may set asymmetric access states (SET TARGET PORT GROUPS):
     * not on an HA pair's LU, whose states follow the nodes' roles (INQUIRY TPGS 01b, implicit
     * only, SPC-4 6.4.2). Elsewhere the gate answers as for a service action not supported
     * (INVALID FIELD IN CDB), and REPORT SUPPORTED OPERATION CODES leaves it out.
     */
    public static final int NEEDS_EXPLICIT_ALUA = 1 << 10;


    // ---- ALUA column (SPC-4 5.15.2.4): the asymmetric access states a command runs in. ----
    // A row without any of these runs only in the active states; otherwise the gate answers
    // NOT READY / LOGICAL UNIT NOT ACCESSIBLE for the state (AluaState.refusal). The lists nest:
    // transitioning ⊂ unavailable ⊂ standby, so each row names one level. High bits, to stay
    // clear of capability flags added below.
    /** Bit: runs in the standby state. */
    public static final int ALUA_STANDBY_BIT = 1 << 12;
    /** Bit: runs in the unavailable state. */
    public static final int ALUA_UNAVAILABLE_BIT = 1 << 13;
    /** Bit: runs in the transitioning state. */
    public static final int ALUA_TRANSITIONING_BIT = 1 << 14;
    /** On the standby list (SPC-4 5.15.2.4.4): MODE SENSE/SELECT, PR IN/OUT, ... */
    public static final int ALUA_STANDBY = ALUA_STANDBY_BIT;
    /** On the unavailable list too (SPC-4 5.15.2.4.5): SET TARGET PORT GROUPS. */
    public static final int ALUA_UNAVAILABLE = ALUA_STANDBY_BIT | ALUA_UNAVAILABLE_BIT;
    /** In every state, transitioning too (SPC-4 5.15.2.4.6): INQUIRY, REPORT LUNS, REQUEST SENSE, RTPG. */
    public static final int ALUA_ANY_STATE = ALUA_UNAVAILABLE | ALUA_TRANSITIONING_BIT;

    public OpcodeEntry {
        if (cdbUsage != null) {
            if (cdbUsage.length != cdbLength || (cdbUsage[0] & 0xFF) != opcode) {
                throw new IllegalArgumentException(name + ": CDB usage map must be " + cdbLength
                        + " bytes starting with the opcode");
            }
            if (serviceAction >= 0 && (cdbUsage[1] & 0x1F) != serviceAction) {
                throw new IllegalArgumentException(name + ": CDB usage byte 1 must hold the service action");
            }
        }
    }

    /**
     * A plain row.
     *
     * @param usageHex the CDB usage map in hex, spaces allowed (e.g. {@code "28 18 FFFFFFFF 00 FFFF 00"})
     */
    public static OpcodeEntry of(int opcode, String name, int cdbLength, CommandHandler handler, int flags,
                                 ReservationRule reservation, String usageHex) {
        return new OpcodeEntry(opcode, -1, name, cdbLength, handler, flags, reservation, usage(usageHex), null);
    }

    /** A service-action row (for a sub-table). */
    public static OpcodeEntry ofServiceAction(int opcode, int serviceAction, String name, int cdbLength,
                                              CommandHandler handler, int flags, ReservationRule reservation,
                                              String usageHex) {
        return new OpcodeEntry(opcode, serviceAction, name, cdbLength, handler, flags, reservation, usage(usageHex),
                null);
    }

    private static byte[] usage(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    /** True if any of the bits in {@code flag} is set. */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /**
     * True if this command exists on {@code lu} (its capability flags hold; any command without a LU).
     *
     * @param explicitAluaTarget whether the LU's target takes SET TARGET PORT GROUPS (not on an HA node)
     */
    public boolean supportedOn(LogicalUnit lu, boolean explicitAluaTarget) {
        return lu == null || (!has(NEEDS_UNMAP) || lu.store().supportsUnmap())
                && (!has(NEEDS_CRYPTO_ERASE) || lu.store().supportsCryptoErase())
                && (!has(NEEDS_EXPLICIT_ALUA) || explicitAluaTarget && lu.explicitAlua());
    }

    /** True for a row reached through a service action (reported with SERVACTV = 1). */
    public boolean isServiceAction() {
        return serviceAction >= 0;
    }
}
