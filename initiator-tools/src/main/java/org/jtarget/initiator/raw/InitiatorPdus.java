package org.jtarget.initiator.raw;

import java.util.Map;

/**
 * Builders for the initiator's request PDUs, one method per PDU kind, each setting exactly the
 * fields RFC 7143 defines for it (section numbers in each Javadoc). Callers may change any field
 * afterwards to build malformed PDUs on purpose.
 */
public final class InitiatorPdus {

    /** Login stages (RFC 7143 11.12.3): CSG/NSG values. */
    public static final int SECURITY_NEGOTIATION = 0;
    public static final int LOGIN_OPERATIONAL_NEGOTIATION = 1;
    public static final int FULL_FEATURE_PHASE = 3;

    /** Login Request byte 1: Transit and Continue bits. */
    public static final int LOGIN_TRANSIT_BIT = 0x80;
    public static final int LOGIN_CONTINUE_BIT = 0x40;

    /** SCSI Command byte 1 (RFC 7143 11.3.1): Read and Write bits; task attribute SIMPLE = 1. */
    public static final int SCSI_READ_BIT = 0x40;
    public static final int SCSI_WRITE_BIT = 0x20;
    public static final int TASK_ATTRIBUTE_SIMPLE = 1;

    /** Logout reason code "close the session" (RFC 7143 11.14.1). */
    public static final int LOGOUT_CLOSE_SESSION = 0;

    private InitiatorPdus() {
    }

    /**
     * Login Request (RFC 7143 11.12), always immediate. Version-max and Version-min are 0.
     *
     * @param transit whether to ask for the stage transition to {@code nsg}
     * @param csg     current stage
     * @param nsg     next stage (meaningful only with {@code transit})
     * @param cid     connection ID, carried in bytes 20-21
     * @param cmdSn   the session's initial CmdSN (login does not advance it)
     */
    public static RawPdu loginRequest(boolean transit, int csg, int nsg, long isid, int tsih, int itt, int cid,
                                      int cmdSn, int expStatSn, Map<String, String> keys) {
        int flags = (transit ? LOGIN_TRANSIT_BIT : 0) | ((csg & 3) << 2) | (transit ? (nsg & 3) : 0);
        return RawPdu.of(IscsiOpcodes.LOGIN_REQUEST)
                .immediate(true)
                .flags(flags)
                .isid(isid)
                .tsih(tsih)
                .itt(itt)
                .u16(RawPdu.WORD20_OFFSET, cid)
                .word24(cmdSn)
                .word28(expStatSn)
                .data(TextKeys.encode(keys));
    }

    /**
     * SCSI Command (RFC 7143 11.3) with the F bit set and SIMPLE task attribute; no immediate
     * data (the data segment is empty: Data-Out follows R2Ts).
     *
     * @param read   sets the R bit (data-in expected)
     * @param write  sets the W bit (data-out expected)
     * @param edtl   Expected Data Transfer Length in bytes
     */
    public static RawPdu scsiCommand(int lun, int itt, int cmdSn, int expStatSn, byte[] cdb, boolean read,
                                     boolean write, int edtl) {
        int flags = RawPdu.FINAL_BIT | (read ? SCSI_READ_BIT : 0) | (write ? SCSI_WRITE_BIT : 0)
                | TASK_ATTRIBUTE_SIMPLE;
        return RawPdu.of(IscsiOpcodes.SCSI_COMMAND)
                .flags(flags)
                .lun(lun)
                .itt(itt)
                .word20(edtl)
                .word24(cmdSn)
                .word28(expStatSn)
                .cdb(cdb);
    }

    /**
     * SCSI Data-Out (RFC 7143 11.7): one PDU of a sequence answering an R2T.
     *
     * @param ttt          the R2T's Target Transfer Tag, echoed
     * @param dataSn       0 for the first PDU of each R2T's sequence, then +1
     * @param bufferOffset where {@code data} starts in the command's buffer
     * @param last         the F bit: last PDU of the sequence
     */
    public static RawPdu dataOut(int lun, int itt, int ttt, int expStatSn, int dataSn, int bufferOffset,
                                 byte[] data, boolean last) {
        return RawPdu.of(IscsiOpcodes.SCSI_DATA_OUT)
                .flags(last ? RawPdu.FINAL_BIT : 0)
                .lun(lun)
                .itt(itt)
                .word20(ttt)
                .word28(expStatSn)
                .word36(dataSn)
                .word40(bufferOffset)
                .data(data);
    }

    /**
     * NOP-Out (RFC 7143 11.18). As a ping: {@code itt} is a real tag, {@code ttt} is 0xffffffff.
     * As an answer to a target's NOP-In: {@code itt} is 0xffffffff, {@code ttt} echoes the NOP-In's,
     * and the PDU is immediate.
     */
    public static RawPdu nopOut(int itt, int ttt, int cmdSn, int expStatSn, boolean immediate) {
        return RawPdu.of(IscsiOpcodes.NOP_OUT)
                .immediate(immediate)
                .flags(RawPdu.FINAL_BIT)
                .itt(itt)
                .word20(ttt)
                .word24(cmdSn)
                .word28(expStatSn);
    }

    /** Text Request (RFC 7143 11.10), final, with a fresh TTT 0xffffffff. */
    public static RawPdu textRequest(int itt, int cmdSn, int expStatSn, Map<String, String> keys) {
        return RawPdu.of(IscsiOpcodes.TEXT_REQUEST)
                .flags(RawPdu.FINAL_BIT)
                .itt(itt)
                .word20(RawPdu.RESERVED_TAG)
                .word24(cmdSn)
                .word28(expStatSn)
                .data(TextKeys.encode(keys));
    }

    /** Logout Request closing the session (RFC 7143 11.14), immediate. */
    public static RawPdu logoutRequest(int itt, int cid, int cmdSn, int expStatSn) {
        return RawPdu.of(IscsiOpcodes.LOGOUT_REQUEST)
                .immediate(true)
                .flags(RawPdu.FINAL_BIT | LOGOUT_CLOSE_SESSION)
                .itt(itt)
                .u16(RawPdu.WORD20_OFFSET, cid)
                .word24(cmdSn)
                .word28(expStatSn);
    }
}
