package org.jtarget.initiator.bench;

import java.io.IOException;
import org.jtarget.initiator.cli.SrpSession;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.srp.SrpChannel;
import org.jtarget.initiator.srp.SrpProtocolException;
import org.jtarget.initiator.srp.SrpStatus;

/**
 * One SRP channel's load loop ({@link BenchSession}): an SRP_CMD goes only while the target's
 * request limit has a credit (SRP r16a 5.5.2, what MaxCmdSN is to iSCSI), and each command is timed
 * from just before its SEND is posted to its SRP_RSP.
 *
 * <p>Each queue slot owns a registered data slot of the channel, staged with the payload once
 * ({@link #stageDataSlots}); its SRP_CMD names the slot in a direct descriptor, so the target RDMA
 * WRITEs read data into it and RDMA READs write data from it, or, for a write within the login's
 * immediate data limit, carries the slot's bytes itself. The SRP_CMD is written straight into a
 * registered send buffer from one reused CDB, and the SRP_RSP decoded in place: nothing is
 * allocated per command. The loop runs on the connection's socket event loop, as over iSER
 * ({@link SrpChannel#drive}): commands are posted where their SENDs are written and responses
 * taken where they complete. Tags carry the session's index above the queue slot's tag, so that
 * the channels of one I_T nexus never share one.
 */
final class SrpBenchSession extends BenchSession {

    /** READ (16)/WRITE (16) CDB (SBC-4 5.16, 5.45): the LBA at bytes 2-9 (TRANSFER LENGTH, 10-13, never changes). */
    private static final int CDB_LBA_OFFSET = 2;

    private final SrpSession session;
    private final SrpChannel channel;
    private final byte[] cdb;
    private final long tagBase;

    /** Prepares every buffer; {@code session} must be logged in with a data slot per queue slot. */
    SrpBenchSession(int index, SrpSession session, SessionPlan plan) {
        super(index, plan);
        this.session = session;
        this.channel = session.channel();
        this.cdb = ScsiCdbs.read16(0, plan.ioBlocks());
        this.tagBase = (long) index << Integer.SIZE;
        stageDataSlots(channel.slots(), channel.slotBytes(), channel::stage);
    }

    @Override
    protected void loop() throws IOException {
        channel.drive(this::turn);
    }

    /**
     * Issues and handles what has arrived, without waiting; true once the run is over and drained.
     * Fills again when an SRP_CRED_REQ alone brought credits (no response would wake it up then).
     */
    private boolean turn() throws IOException {
        while (true) {
            if (drained()) {
                return true;
            }
            int credits = channel.requestLimit();
            if (channel.pollResponse()) {
                take(channel.response());
            } else if (channel.requestLimit() <= credits) {
                return false;
            }
        }
    }

    /** r16a 5.5.2: an SRP_CMD needs a credit. */
    @Override
    protected boolean windowOpen() {
        return channel.requestLimit() > 0;
    }

    @Override
    protected void send(int slot, int tag, boolean write, long lba) throws IOException {
        cdb[0] = (byte) (write ? ScsiCdbs.WRITE_16 : ScsiCdbs.READ_16);
        for (int i = 0; i < Long.BYTES; i++) {
            cdb[CDB_LBA_OFFSET + i] = (byte) (lba >>> (Long.SIZE - Byte.SIZE * (i + 1)));
        }
        int bytes = plan.blockBytes();
        channel.sendCommand(slot, tagBase | (tag & 0xffffffffL), plan.lun(), cdb, write ? 0 : bytes,
                write ? bytes : 0);
    }

    private void take(SrpStatus status) throws IOException {
        int slot = (status.tag() >>> Integer.SIZE) == index ? slotOf((int) status.tag()) : -1;
        if (slot < 0) {
            throw new SrpProtocolException("SRP_RSP for unknown tag 0x" + Long.toHexString(status.tag()));
        }
        if (status.good()) {
            completed(slot);
        } else {
            failed(slot, status.result(new byte[0], !writing(slot)));
        }
    }

    /** SRP_I_LOGOUT, then the disconnect. */
    @Override
    protected void logout() {
        session.close();
    }

    @Override
    protected void close() {
        session.abort();
    }
}
