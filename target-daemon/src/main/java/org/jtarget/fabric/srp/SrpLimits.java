package org.jtarget.fabric.srp;

/**
 * The sizes of one SRP channel's queues and buffers (SRP r16a 5.5: the request limit is the number
 * of initiator requests the target has room for).
 *
 * @param credits         the request limit granted at login (REQ_LIM_DELTA of SRP_LOGIN_RSP): one
 *                        receive buffer per SRP_CMD or SRP_TSK_MGMT the initiator may have
 *                        outstanding. Linux's ib_srp keeps one of them for task management
 * @param maxItIuLength   the longest initiator-to-target IU accepted at login (an SRP_CMD with
 *                        immediate data: Linux asks for 68 + 8 KiB)
 * @param maxRdmaChunk    the most bytes one RDMA READ or WRITE moves
 * @param readsPerTask    RDMA READs of one command's data-out in flight at once
 */
public record SrpLimits(int credits, int maxItIuLength, int maxRdmaChunk, int readsPerTask) {

    /** The shortest IU length an initiator may ask for: an SRP_CMD with one direct descriptor (r16a 6.8). */
    public static final int MIN_IT_IU_LENGTH = 64;
    /**
     * The longest IU the target sends: SRP_RSP with 4 bytes of response data and the longest sense
     * data (36 + 4 + 252), longer than an SRP_AER_REQ (36 + 252). SRP_LOGIN_RSP's MAX_TI_IU_LEN.
     */
    public static final int MAX_TI_IU_LENGTH = 36 + 4 + 252;
    /**
     * Receives beyond the credits: the initiator answers the target's one outstanding SRP_CRED_REQ
     * or SRP_AER_REQ (SRP_CRED_RSP, SRP_AER_RSP need no credit) and may send SRP_I_LOGOUT at any
     * time. iWARP has no receiver-not-ready retry: a SEND that finds no receive ends the channel.
     */
    public static final int UNCREDITED_RECEIVES = 2;

    public SrpLimits {
        if (credits < 2 || maxItIuLength < MIN_IT_IU_LENGTH || maxRdmaChunk < 4096 || readsPerTask < 1) {
            throw new IllegalArgumentException("SRP limits out of range: " + credits + ", " + maxItIuLength + ", "
                    + maxRdmaChunk + ", " + readsPerTask);
        }
    }

    /** 64 credits (ib_srp's default queue size), IUs up to 68 + 64 KiB, 1 MiB RDMA chunks, 4 READs per command. */
    public static SrpLimits defaults() {
        return new SrpLimits(64, 68 + (64 << 10), 1 << 20, 4);
    }

    /** Receives posted at all times. */
    public int receiveDepth() {
        return credits + UNCREDITED_RECEIVES;
    }

    /** SENDs in flight: a response per credit, one SRP_CRED_REQ or SRP_AER_REQ, one SRP_T_LOGOUT. */
    public int sendDepth() {
        return credits + 2;
    }

    /** RDMA READs and WRITEs in flight at once on the channel. */
    public int dataDepth() {
        return credits * readsPerTask;
    }
}
