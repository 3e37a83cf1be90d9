package org.jtarget.initiator.bench;

import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import org.jtarget.initiator.raw.InitiatorPdus;
import org.jtarget.initiator.raw.IscsiOpcodes;
import org.jtarget.initiator.raw.IscsiProtocolException;
import org.jtarget.initiator.raw.PduChannel;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.RawPdu;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * One iSCSI session's load loop ({@link BenchSession}) on one thread: never sends a CmdSN beyond
 * the target's MaxCmdSN (RFC 7143 4.2.2.1), and times each command from just before its SCSI
 * Command PDU is sent to the PDU carrying its status (SCSI Response, or the last Data-In with the
 * S bit, RFC 7143 11.7.2).
 *
 * <p>Each queue slot owns one SCSI Command PDU, reused for every command it carries; write data
 * comes from {@link Payloads}, as immediate data up to {@code min(FirstBurstLength,
 * MaxRecvDataSegmentLength)} when negotiated (RFC 7143 13.11), the rest in Data-Out PDUs answering
 * the target's R2Ts (RFC 7143 11.8). The Initiator Task Tag is the queue slot's tag. The raw client
 * itself still makes the wire bytes of each PDU in a new array (and reads each received one into
 * new arrays).
 *
 * <p>Over iSER ({@link PduChannel.DirectData}) each queue slot also owns a registered data slot that
 * its commands name in the iSER header: the target RDMA WRITEs read data into it and RDMA READs
 * write data from it, so neither Data-In nor R2T arrives (the payload is staged once: see
 * {@link #stageDataSlots}). The loop itself runs on the connection's socket event loop
 * ({@link PduChannel.Driven}): commands are posted where their SENDs are written and responses
 * taken where they complete.
 */
final class IscsiBenchSession extends BenchSession {

    private static final int STATUS_BIT = 0x01;
    private static final int READ_FLAGS = RawPdu.FINAL_BIT | InitiatorPdus.SCSI_READ_BIT
            | InitiatorPdus.TASK_ATTRIBUTE_SIMPLE;
    private static final int WRITE_FLAGS = RawPdu.FINAL_BIT | InitiatorPdus.SCSI_WRITE_BIT
            | InitiatorPdus.TASK_ATTRIBUTE_SIMPLE;
    /** READ (16)/WRITE (16) CDB (SBC-4 5.16, 5.45): the LBA at bytes 2-9 (TRANSFER LENGTH, 10-13, never changes). */
    private static final int CDB_LBA_OFFSET = RawPdu.CDB_OFFSET + 2;
    private static final byte[] NO_DATA = new byte[0];

    private final RawIscsiClient client;
    private final int immediateBytes;
    private final int segmentBytes;
    private final RawPdu[] commands;
    private final RawPdu dataOut;
    /** The registered data slots over iSER, or null over TCP. */
    private final PduChannel.DirectData direct;
    private int cmdSn;
    private int maxCmdSn;
    private int expStatSn;

    /**
     * Prepares every buffer; {@code client} must be logged in. Pings once (RFC 7143 11.18) to learn
     * the StatSN the first command acknowledges.
     */
    IscsiBenchSession(int index, RawIscsiClient client, SessionPlan plan) throws IOException {
        super(index, plan);
        this.client = client;
        this.segmentBytes = client.targetMaxRecvDataSegmentLength();
        int immediate = Math.min(plan.blockBytes(), client.immediateDataLimit());
        // over iSER a write is either wholly immediate or wholly fetched by RDMA READ
        this.immediateBytes = client.directData() != null && immediate < plan.blockBytes() ? 0 : immediate;
        commands = new RawPdu[plan.queueDepth()];
        for (int slot = 0; slot < commands.length; slot++) {
            commands[slot] = newCommand();
        }
        dataOut = InitiatorPdus.dataOut(plan.lun(), 0, 0, 0, 0, 0, NO_DATA, false);
        direct = client.directData();
        if (direct != null) {
            stageDataSlots(direct.slots(), direct.slotBytes(), direct::stage);
        }
        expStatSn = client.ping().word24() + 1;
        cmdSn = client.cmdSn();
        maxCmdSn = client.maxCmdSn();
    }

    private RawPdu newCommand() {
        return InitiatorPdus.scsiCommand(plan.lun(), 0, 0, 0, ScsiCdbs.read16(0, plan.ioBlocks()), true, false,
                plan.blockBytes());
    }

    @Override
    protected void close() {
        try {
            client.close();
        } catch (IOException e) {
            // nothing left to do with it
        }
    }

    /**
     * Over a channel with a driven mode (iSER) the loop runs on the connection's I/O thread, one
     * {@link #turn} per burst of completions; otherwise on this thread, blocking in each read.
     */
    @Override
    protected void loop() throws IOException {
        PduChannel.Driven driven = client.driven();
        if (driven != null) {
            driven.drive(this::turn);
            return;
        }
        while (true) {
            if (drained()) {
                return;
            }
            RawPdu pdu = client.readPdu();
            if (pdu == null) {
                throw new EOFException("the target closed the connection");
            }
            take(pdu);
        }
    }

    /** Issues and handles what has arrived, without waiting; true once the run is over and drained. */
    private boolean turn() throws IOException {
        while (true) {
            if (drained()) {
                return true;
            }
            RawPdu pdu = client.pollPdu();
            if (pdu == null) {
                return false;
            }
            take(pdu);
        }
    }

    private void take(RawPdu pdu) throws IOException {
        if (pdu.opcode() >= IscsiOpcodes.NOP_IN && client.maxCmdSn() - maxCmdSn > 0) {
            maxCmdSn = client.maxCmdSn(); // serial arithmetic: never move the window back (RFC 7143 4.2.2.1)
        }
        handle(pdu);
    }

    /** RFC 7143 4.2.2.1: CmdSN within MaxCmdSN (serial arithmetic). */
    @Override
    protected boolean windowOpen() {
        return cmdSn - maxCmdSn <= 0;
    }

    @Override
    protected void send(int slot, int itt, boolean write, long lba) throws IOException {
        RawPdu cmd = commands[slot];
        cmd.flags(write ? WRITE_FLAGS : READ_FLAGS).itt(itt).word24(cmdSn).word28(expStatSn);
        cmd.u8(RawPdu.CDB_OFFSET, write ? ScsiCdbs.WRITE_16 : ScsiCdbs.READ_16);
        cmd.u32(CDB_LBA_OFFSET, (int) (lba >>> 32)).u32(CDB_LBA_OFFSET + 4, (int) lba);
        cmd.data(write && immediateBytes > 0 ? payloads.of(immediateBytes) : NO_DATA);
        if (direct == null) {
            client.send(cmd);
        } else {
            int bytes = plan.blockBytes();
            direct.sendCommand(cmd, slot, write ? 0 : bytes, write && immediateBytes == 0 ? bytes : 0);
        }
        cmdSn++;
    }

    private void handle(RawPdu pdu) throws IOException {
        switch (pdu.opcode()) {
            case IscsiOpcodes.SCSI_RESPONSE -> complete(slotOf(pdu), pdu, pdu.u8(2));
            case IscsiOpcodes.SCSI_DATA_IN -> {
                int slot = slotOf(pdu);
                if ((pdu.flags() & STATUS_BIT) != 0) {
                    complete(slot, pdu, 0);
                }
            }
            case IscsiOpcodes.R2T -> answerR2T(slotOf(pdu), pdu);
            case IscsiOpcodes.NOP_IN -> {
                if (pdu.word20() != RawPdu.RESERVED_TAG) { // RFC 7143 11.19.2: the target asks for an answer
                    client.send(InitiatorPdus.nopOut(RawPdu.RESERVED_TAG, pdu.word20(), cmdSn, expStatSn, true));
                }
            }
            case IscsiOpcodes.ASYNC_MESSAGE -> {
                // nothing to do: a request to log out ends in a closed connection, reported then
            }
            case IscsiOpcodes.REJECT -> throw new IscsiProtocolException("target sent Reject reason 0x"
                    + Integer.toHexString(pdu.u8(2)));
            default -> throw new IscsiProtocolException("unexpected " + pdu);
        }
    }

    /** The busy slot a target PDU answers; a protocol error for an unknown tag. */
    private int slotOf(RawPdu pdu) throws IscsiProtocolException {
        int slot = slotOf(pdu.itt());
        if (slot < 0) {
            throw new IscsiProtocolException("answer for unknown ITT 0x" + Integer.toHexString(pdu.itt()) + ": " + pdu);
        }
        return slot;
    }

    /** The command in {@code slot} ended: PDU {@code pdu} carries its status and StatSN. */
    private void complete(int slot, RawPdu pdu, int response) {
        expStatSn = pdu.word24() + 1; // RFC 7143 4.2.2.2: acknowledge the status
        int status = pdu.u8(3);
        if (status == ScsiResult.GOOD && response == 0) {
            completed(slot);
        } else {
            byte[] sense = pdu.opcode() == IscsiOpcodes.SCSI_RESPONSE ? sense(pdu.data()) : NO_DATA;
            failed(slot, new ScsiResult(status, response, NO_DATA, sense, 0));
        }
    }

    /** RFC 7143 11.4.7: the data segment of a SCSI Response is SenseLength (2 bytes) then the sense data. */
    private static byte[] sense(byte[] d) {
        if (d.length < 2) {
            return NO_DATA;
        }
        int len = ((d[0] & 0xff) << 8) | (d[1] & 0xff);
        return Arrays.copyOfRange(d, 2, Math.min(d.length, 2 + len));
    }

    /** RFC 7143 11.8: Data-Out PDUs for the bytes an R2T asks for, each at most MaxRecvDataSegmentLength. */
    private void answerR2T(int slot, RawPdu r2t) throws IOException {
        int offset = r2t.word40();
        int length = r2t.word44();
        if (!writing(slot) || offset < 0 || length < 0 || (long) offset + length > plan.blockBytes()) {
            throw new IscsiProtocolException("R2T for bytes " + offset + "+" + length + " of a "
                    + (writing(slot) ? plan.blockBytes() + "-byte write" : "read") + ": " + r2t);
        }
        dataOut.itt(r2t.itt()).word20(r2t.word20()).word28(expStatSn);
        int dataSn = 0;
        for (int done = 0; done < length; dataSn++) {
            int n = Math.min(segmentBytes, length - done);
            dataOut.flags(done + n == length ? RawPdu.FINAL_BIT : 0).word36(dataSn).word40(offset + done)
                    .data(payloads.of(n));
            client.send(dataOut);
            done += n;
        }
    }

    /** Logout closing the session (RFC 7143 11.14), best effort: the numbers are already in. */
    @Override
    protected void logout() throws IOException {
        int itt = 0x7fff_0000 | SLOT_MASK;
        client.send(InitiatorPdus.logoutRequest(itt, 0, cmdSn, expStatSn));
        for (int i = 0; i < 16; i++) {
            RawPdu pdu = client.readPdu();
            if (pdu == null || pdu.opcode() == IscsiOpcodes.LOGOUT_RESPONSE) {
                return;
            }
        }
    }
}
