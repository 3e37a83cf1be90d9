package org.jtarget.fabric.iscsi.iser;

/**
 * The sizes of one iSER connection's queues and buffers, fixed when the connection is accepted.
 *
 * @param commands                 the most SCSI commands in flight on the connection: the command
 *                                 window (MaxCmdSN - ExpCmdSN + 1) plus immediate ones
 * @param unexpectedPdus           room for PDUs beyond the commands that an initiator may send
 *                                 unasked (NOP-Out, Text, task management, Logout; RFC 7145
 *                                 MaxOutstandingUnexpectedPDUs; Linux isert keeps 6)
 * @param receiveDataSegmentLength the largest data segment a received PDU may carry: before
 *                                 login 8192 (RFC 7145; Linux isert), afterwards the target's
 *                                 TargetRecvDataSegmentLength; the ring is sized for the larger
 * @param maxRdmaChunk             the most bytes one RDMA READ or WRITE moves (larger transfers
 *                                 become several requests)
 * @param readsPerTask             RDMA READs of one command's Data-Out in flight at once
 */
public record IserLimits(int commands, int unexpectedPdus, int receiveDataSegmentLength, int maxRdmaChunk,
                         int readsPerTask) {

    /** Before the login completes, data segments are at most 8192 bytes (RFC 7145; isert ISER_RX_LOGIN_SIZE). */
    public static final int LOGIN_DATA_SEGMENT_LENGTH = 8192;
    /** Room for AHS in a received PDU (an Extended CDB of up to 260 bytes). */
    public static final int MAX_AHS = 264;

    public IserLimits {
        if (commands < 1 || unexpectedPdus < 0 || receiveDataSegmentLength < LOGIN_DATA_SEGMENT_LENGTH
                || maxRdmaChunk < 4096 || readsPerTask < 1) {
            throw new IllegalArgumentException("iSER limits out of range: " + commands + ", " + unexpectedPdus + ", "
                    + receiveDataSegmentLength + ", " + maxRdmaChunk + ", " + readsPerTask);
        }
    }

    /** For a target with this command window and data segment length. */
    public static IserLimits of(int commandWindow, int receiveDataSegmentLength) {
        return new IserLimits(commandWindow + 8, 8, Math.max(LOGIN_DATA_SEGMENT_LENGTH, receiveDataSegmentLength),
                1 << 20, 4);
    }

    /**
     * Receives posted at all times: one per command (its SCSI Command PDU) and per unexpected
     * PDU. iWARP has no receiver-not-ready retry, so a SEND that finds no receive ends the
     * connection: the ring must cover everything the initiator may send unasked.
     */
    public int receiveDepth() {
        return commands + unexpectedPdus;
    }

    /** Bytes of one receive buffer: iSER header, BHS, AHS, data segment with its padding. */
    public int receiveBufferSize() {
        return IserHeader.LENGTH + 48 + MAX_AHS + receiveDataSegmentLength + 3;
    }

    /** Bytes of one send buffer: iSER header, BHS and data segment (the target sends no AHS). */
    public int sendBufferSize() {
        return IserHeader.LENGTH + 48 + receiveDataSegmentLength + 3;
    }

    /** SENDs in flight: one response per command plus NOP-In, Async, Reject and the like. */
    public int sendDepth() {
        return commands + unexpectedPdus;
    }

    /** RDMA READs and WRITEs in flight at once on the connection. */
    public int dataDepth() {
        return commands * readsPerTask;
    }
}
