package org.jtarget.initiator.srp;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.srp.iu.SrpIu;
import org.jtarget.fabric.srp.iu.SrpLoginRequest;
import org.jtarget.fabric.srp.iu.SrpLoginResponse;
import org.jtarget.fabric.srp.iu.SrpLogout;
import org.jtarget.fabric.srp.iu.SrpPortId;
import org.jtarget.initiator.raw.RawPdu;
import org.jtarget.initiator.raw.ScsiResult;
import org.jtarget.initiator.rdma.MessageConnection;

/**
 * One SRP RDMA channel (T10 SRP r16a) of the initiator over the iwarp provider, made as Linux's
 * ib_srp makes it over rdma_cm: the 56-byte SRP_LOGIN_REQ in the connect request's private data,
 * the target's SRP_LOGIN_RSP in the accept's (its SRP_LOGIN_REJ in the reject's:
 * {@link SrpLoginRefused}). Then each command is an SRP_CMD in a SEND with a direct descriptor
 * (absolute address, rkey, length) naming one registered data slot, which the target RDMA WRITEs
 * the data-in into and RDMA READs the data-out from; a write of at most {@link #immediateDataLimit()}
 * bytes travels inside its SRP_CMD instead, at byte {@link #IMMEDIATE_DATA_OFFSET} (SRP-2, what
 * ib_srp does when the login agreed to it). The SRP_RSP carries status, residuals and sense
 * ({@link SrpStatus}); one queue pair executes in order, so the data is placed when it arrives.
 *
 * <p>Credits (r16a 5.5.2): the login grants the request limit; every SRP_CMD uses one credit and
 * every SRP_RSP gives back its REQUEST LIMIT DELTA. An SRP_CRED_REQ gives credits outside of a
 * response and is answered with SRP_CRED_RSP (which uses none), an SRP_AER_REQ with SRP_AER_RSP;
 * an SRP_T_LOGOUT ends the channel ({@link EOFException} with its reason in words).
 *
 * <p>The connection, its memory (receive ring, send buffers of one IU each, data slots) and its
 * blocking and driven ways of waiting are a {@link MessageConnection}, as for the iSER client.
 * The login's private data is made and read with the daemon's codecs (the control path, tested
 * against ib_srp's layouts there); the IUs on the queue pair are written and read here from r16a's
 * layouts, so that a wrong constant on either side fails a test instead of cancelling out, and so
 * that a command allocates nothing. Not thread-safe.
 */
public final class SrpChannel implements AutoCloseable {

    /**
     * Where immediate data starts in an SRP_CMD: 48 bytes, 16 of additional CDB at most, the 4-byte
     * immediate descriptor (Linux {@code SRP_IMM_DATA_OFFSET}, whatever the CDB's length).
     */
    public static final int IMMEDIATE_DATA_OFFSET = 68;
    /** The most write data sent inside an SRP_CMD: Linux ib_srp's default {@code max_imm_data}. */
    public static final int IMMEDIATE_DATA_BYTES = 8192;
    /** The longest IU we send, asked for at login: an SRP_CMD with the most immediate data. */
    public static final int IU_LENGTH = IMMEDIATE_DATA_OFFSET + IMMEDIATE_DATA_BYTES;
    /**
     * Our receive buffers: the longest IU an SRP target needs to send is an SRP_RSP with 4 bytes of
     * response data and 252 of sense (292 bytes; an SRP_AER_REQ is shorter). A login whose
     * MAXIMUM TARGET TO INITIATOR IU LENGTH is larger is refused by us: the receives are posted
     * before the connection is made (iWARP has no receiver-not-ready retry), so they cannot grow.
     */
    static final int RECEIVE_BYTES = 512;
    /** IUs the target may send beyond one SRP_RSP per command: SRP_CRED_REQ, SRP_AER_REQ, SRP_T_LOGOUT, a spare. */
    static final int UNSOLICITED_IUS = 4;

    /** SRP r16a opcodes (byte 0 of every IU). */
    static final int CMD = 0x02;
    static final int I_LOGOUT = 0x03;
    static final int CRED_RSP = 0x41;
    static final int AER_RSP = 0x42;
    static final int T_LOGOUT = 0x80;
    static final int CRED_REQ = 0x81;
    static final int AER_REQ = 0x82;
    /** SRP_CMD: the fixed part, the CDB field, the descriptor formats (DATA-OUT in bits 7..4, DATA-IN in 3..0). */
    static final int CMD_LENGTH = 48;
    static final int CDB_OFFSET = 32;
    static final int CDB_LENGTH = 16;
    static final int DIRECT_DESCRIPTOR_LENGTH = 16;
    static final int FORMAT_NONE = 0;
    static final int FORMAT_DIRECT = 1;
    static final int FORMAT_IMMEDIATE = 3;
    /** SRP_I_LOGOUT, SRP_T_LOGOUT, SRP_CRED_REQ/RSP, SRP_AER_RSP: opcode, reserved, a word at 4, the tag at 8. */
    static final int SHORT_IU_LENGTH = 16;
    static final int AER_REQ_MIN_LENGTH = 36;
    static final int WORD_OFFSET = 4;
    static final int TAG_OFFSET = 8;
    /** The tag of our login request and of our SRP_I_LOGOUT (r16a leaves them to the initiator). */
    private static final long LOGIN_TAG = 0x6a74_6c6f_6769_6e00L;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MessageConnection connection;
    private final MemorySegment memory;
    private final SrpStatus status = new SrpStatus();
    private final int immediateLimit;
    private int requestLimit;
    /** Tags of {@link #execute}'s commands (bench chooses its own). */
    private long nextTag = 1;

    private SrpChannel(MessageConnection connection, int immediateLimit, int requestLimit) {
        this.connection = connection;
        this.memory = connection.memory();
        this.immediateLimit = immediateLimit;
        this.requestLimit = requestLimit;
    }

    /**
     * Logs in to target port {@code target} at {@code host:port} as initiator port {@code initiator},
     * with {@code slots} data slots of {@code slotBytes} each (commands in flight, largest transfer).
     *
     * @param multiChannel join the I_T nexus's other channels (r16a MULTI-CHANNEL ACTION 1: a bench
     *                     session after the first) instead of ending them (0, as ib_srp's first channel asks)
     * @param timeout      for the connection, then for each wait for an IU
     * @throws SrpLoginRefused when the target answers with SRP_LOGIN_REJ
     */
    public static SrpChannel connect(String host, int port, SrpPortId initiator, SrpPortId target,
                                     boolean multiChannel, Duration timeout, int slots, int slotBytes)
            throws IOException {
        MessageConnection.Layout layout = new MessageConnection.Layout(slots + UNSOLICITED_IUS, RECEIVE_BYTES,
                slots + UNSOLICITED_IUS, IU_LENGTH, slots, slotBytes);
        int flags = SrpLoginRequest.IMMEDIATE_DATA_REQUESTED | (multiChannel
                ? SrpLoginRequest.MULTIPLE_INDEPENDENT_CHANNELS : SrpLoginRequest.SINGLE_CHANNEL);
        byte[] login = new SrpLoginRequest(SrpLoginRequest.Form.RDMA_CM, LOGIN_TAG, IU_LENGTH,
                SrpIu.BUFFER_FORMAT_DIRECT, flags, IMMEDIATE_DATA_OFFSET, initiator, target).encode();
        MessageConnection c;
        try {
            c = MessageConnection.connect("SRP", host, port, layout, login, timeout);
        } catch (MessageConnection.Rejected e) {
            throw SrpLoginRefused.of(e.privateData());
        }
        try {
            return loggedIn(c, c.acceptData());
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** The channel the target's SRP_LOGIN_RSP describes, or why we cannot use it. */
    private static SrpChannel loggedIn(MessageConnection c, byte[] accept) throws IOException {
        SrpLoginResponse rsp = switch (SrpLoginResponse.decode(accept)) {
            case Decoded.Ok<SrpLoginResponse> ok -> ok.value();
            case Decoded.Malformed<SrpLoginResponse> m ->
                    throw new SrpProtocolException("the accept carries no SRP_LOGIN_RSP: " + m.reason());
        };
        long targetIus = Integer.toUnsignedLong(rsp.maxTargetToInitiatorIuLength());
        long ourIus = Integer.toUnsignedLong(rsp.maxInitiatorToTargetIuLength());
        if (targetIus > RECEIVE_BYTES) {
            throw new SrpProtocolException("the target sends IUs of up to " + targetIus + " bytes, more than our "
                    + RECEIVE_BYTES + "-byte receive buffers");
        }
        if (ourIus < CMD_LENGTH + DIRECT_DESCRIPTOR_LENGTH || (rsp.bufferFormats() & SrpIu.BUFFER_FORMAT_DIRECT) == 0) {
            throw new SrpProtocolException("the target takes no SRP_CMD with a direct descriptor (IUs of " + ourIus
                    + " bytes, buffer formats 0x" + Integer.toHexString(rsp.bufferFormats()) + ")");
        }
        if (rsp.requestLimitDelta() < 1) {
            throw new SrpProtocolException("the target granted " + rsp.requestLimitDelta() + " credits at login");
        }
        int immediate = rsp.immediateDataSupported()
                ? (int) Math.max(0, Math.min(IMMEDIATE_DATA_BYTES, ourIus - IMMEDIATE_DATA_OFFSET)) : 0;
        return new SrpChannel(c, immediate, rsp.requestLimitDelta());
    }

    /** Null when the registered memory is locked in RAM, else why not. */
    public String unpinnedNote() {
        return connection.unpinnedNote();
    }

    /** Commands that can be in flight at once (each has its data slot), credits allowing. */
    public int slots() {
        return connection.layout().slots();
    }

    /** The largest transfer of one command. */
    public int slotBytes() {
        return connection.layout().slotBytes();
    }

    /** SRP_CMDs that may be sent now (r16a's request limit less the commands outstanding). */
    public int requestLimit() {
        return requestLimit;
    }

    /** The most bytes of a write that go inside its SRP_CMD: 0 when the login did not agree to immediate data. */
    public int immediateDataLimit() {
        return immediateLimit;
    }

    /**
     * Sets how long each wait for an IU (and for a send buffer) lasts from now on before
     * {@link java.net.SocketTimeoutException}: at first the login's timeout.
     */
    public void readTimeout(Duration timeout) {
        connection.readTimeout(timeout);
    }

    /** Copies {@code length} bytes of {@code from} into data slot {@code slot}, a next write's data-out. */
    public void stage(int slot, byte[] from, int offset, int length) {
        connection.stage(slot, from, offset, length);
    }

    // ------------------------------------------------------------------ one command at a time

    /**
     * Runs one command through data slot 0 and waits for its SRP_RSP: data-in of up to
     * {@code readLength} bytes, or the data-out {@code writeData} (null for none). The data-in
     * returned is {@code readLength} less the underflow residual. Without a credit it first waits
     * for the target's SRP_CRED_REQ.
     *
     * @throws EOFException when the channel ends first (the target disconnected or logged it out)
     */
    public ScsiResult execute(int lun, byte[] cdb, int readLength, byte[] writeData) throws IOException {
        boolean write = writeData != null;
        if (write) {
            connection.stage(0, writeData, 0, writeData.length);
        }
        awaitCredit();
        long tag = nextTag++;
        sendCommand(0, tag, lun, cdb, write ? 0 : readLength, write ? writeData.length : 0);
        if (!awaitResponse()) {
            throw new EOFException("the target closed the SRP channel while a command (opcode 0x"
                    + Integer.toHexString(cdb[0] & 0xff) + ") was outstanding: " + connection.describeEnd());
        }
        if (status.tag() != tag) {
            throw new SrpProtocolException("SRP_RSP for tag 0x" + Long.toHexString(status.tag()) + " where 0x"
                    + Long.toHexString(tag) + " was outstanding");
        }
        int placed = write ? 0 : Math.clamp(readLength - (long) Math.max(status.dataInResidual(), 0), 0, readLength);
        byte[] data = new byte[placed];
        connection.take(0, data, 0, placed);
        return status.result(data, !write);
    }

    /** r16a 5.5.2: with no credit left and no command outstanding, only an SRP_CRED_REQ can give one. */
    private void awaitCredit() throws IOException {
        while (requestLimit <= 0) {
            if (!connection.awaitMessage()) {
                throw new EOFException("the target closed the SRP channel while we waited for a credit: "
                        + connection.describeEnd());
            }
            if (takeIu()) {
                throw new SrpProtocolException("SRP_RSP for tag 0x" + Long.toHexString(status.tag())
                        + " with no command outstanding");
            }
        }
    }

    // ------------------------------------------------------------------ commands in flight

    /**
     * SENDs an SRP_CMD of {@code cdb} (at most 16 bytes) to {@code lun} whose data-in
     * ({@code readLength} bytes) or data-out ({@code writeLength} bytes, staged in the slot) moves
     * through data slot {@code slot}: by a direct descriptor, or inside the IU for a write within
     * {@link #immediateDataLimit()}. Uses one credit. Allocates nothing.
     *
     * @throws IllegalStateException when no credit is left ({@link #requestLimit()} is 0)
     */
    public void sendCommand(int slot, long tag, int lun, byte[] cdb, int readLength, int writeLength)
            throws IOException {
        if (readLength > 0 && writeLength > 0 || cdb.length > CDB_LENGTH) {
            throw new IllegalArgumentException("a bidirectional command or a CDB of more than 16 bytes");
        }
        connection.checkSlot(slot, Math.max(readLength, writeLength));
        if (requestLimit <= 0) {
            throw new IllegalStateException("no SRP credit left: the request limit is " + requestLimit);
        }
        boolean immediate = writeLength > 0 && writeLength <= immediateLimit;
        int out = writeLength == 0 ? FORMAT_NONE : immediate ? FORMAT_IMMEDIATE : FORMAT_DIRECT;
        int in = readLength == 0 ? FORMAT_NONE : FORMAT_DIRECT;
        int buffer = connection.takeSendBuffer();
        long at = connection.sendOffset(buffer);
        writeFixedPart(at, (out << 4) | in, tag, lun, cdb);
        int length = CMD_LENGTH;
        if (immediate) {
            length = writeImmediateData(at, slot, writeLength);
        } else if (out == FORMAT_DIRECT || in == FORMAT_DIRECT) {
            // one direction at most, so one descriptor, right after the fixed part
            writeDirectDescriptor(at + CMD_LENGTH, slot, Math.max(readLength, writeLength));
            length += DIRECT_DESCRIPTOR_LENGTH;
        }
        connection.postSend(buffer, length);
        requestLimit--;
    }

    /**
     * r16a SRP_CMD bytes 0-47: opcode, SOLICITED NOTIFICATION 0, buffer formats (descriptor counts
     * 0: a direct descriptor's is ignored, ib_srp sends 0), tag, LUN, task attribute SIMPLE, no
     * additional CDB, the CDB padded with zeros.
     */
    private void writeFixedPart(long at, int formats, long tag, int lun, byte[] cdb) {
        memory.set(INT, at, CMD << 24);
        memory.set(INT, at + 4, formats << 16);
        memory.set(LONG, at + TAG_OFFSET, tag);
        memory.set(INT, at + 16, 0);
        memory.set(LONG, at + 20, RawPdu.encodeLun(lun));
        memory.set(INT, at + 28, 0);
        memory.set(LONG, at + CDB_OFFSET, 0);
        memory.set(LONG, at + CDB_OFFSET + 8, 0);
        MemorySegment.copy(cdb, 0, memory, ValueLayout.JAVA_BYTE, at + CDB_OFFSET, cdb.length);
    }

    /** The 4-byte immediate descriptor (the length), zeros up to the data, the slot's bytes; the IU's length. */
    private int writeImmediateData(long at, int slot, int length) {
        memory.set(INT, at + CMD_LENGTH, length);
        memory.set(LONG, at + CMD_LENGTH + 4, 0);
        memory.set(LONG, at + CMD_LENGTH + 12, 0);
        MemorySegment.copy(memory, connection.slotOffset(slot), memory, at + IMMEDIATE_DATA_OFFSET, length);
        return IMMEDIATE_DATA_OFFSET + length;
    }

    /** r16a direct data buffer descriptor: virtual (here absolute) address, key, length. */
    private void writeDirectDescriptor(long at, int slot, int length) {
        memory.set(LONG, at, connection.slotAddress(slot));
        memory.set(INT, at + 8, connection.rkey());
        memory.set(INT, at + 12, length);
    }

    /** The SRP_RSP {@link #awaitResponse} or {@link #pollResponse} took last (overwritten by the next). */
    public SrpStatus response() {
        return status;
    }

    /**
     * Waits for the next SRP_RSP ({@link #response()}), handling the target's requests that come
     * before it; false when the channel ended first.
     */
    public boolean awaitResponse() throws IOException {
        while (connection.awaitMessage()) {
            if (takeIu()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Inside a {@link #drive} step only: the next SRP_RSP if one has arrived ({@link #response()});
     * never waits.
     *
     * @throws EOFException when the target closed the connection and every IU before it was taken
     */
    public boolean pollResponse() throws IOException {
        while (connection.pollMessage()) {
            if (takeIu()) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code step} on the connection's I/O thread until it returns true ({@link MessageConnection#drive}). */
    public void drive(MessageConnection.Step step) throws IOException {
        connection.drive(step);
    }

    /** Handles the oldest IU received and releases its receive; true when it was an SRP_RSP. */
    private boolean takeIu() throws IOException {
        try {
            return handle(connection.messageOffset(), connection.messageLength());
        } finally {
            connection.releaseMessage();
        }
    }

    private boolean handle(long at, int length) throws IOException {
        int opcode = length > 0 ? memory.get(ValueLayout.JAVA_BYTE, at) & 0xff : -1;
        switch (opcode) {
            case SrpStatus.OPCODE -> {
                String bad = status.decode(memory, at, length);
                if (bad != null) {
                    throw new SrpProtocolException(bad);
                }
                requestLimit += status.requestLimitDelta();
                return true;
            }
            case CRED_REQ, AER_REQ -> {
                requireLength(opcode, length, opcode == CRED_REQ ? SHORT_IU_LENGTH : AER_REQ_MIN_LENGTH);
                requestLimit += memory.get(INT, at + WORD_OFFSET); // REQUEST LIMIT DELTA, signed
                sendShortIu(opcode == CRED_REQ ? CRED_RSP : AER_RSP, memory.get(LONG, at + TAG_OFFSET));
                return false;
            }
            case T_LOGOUT -> {
                requireLength(opcode, length, SHORT_IU_LENGTH);
                throw new EOFException("the target logged the SRP channel out (SRP_T_LOGOUT: "
                        + SrpLogout.describe(memory.get(INT, at + WORD_OFFSET)) + ")");
            }
            default -> throw new SrpProtocolException(String.format(
                    "IU with opcode 0x%02x (%d bytes), which no SRP target sends", opcode, length));
        }
    }

    private static void requireLength(int opcode, int length, int min) throws SrpProtocolException {
        if (length < min) {
            throw new SrpProtocolException(String.format("IU with opcode 0x%02x of %d bytes, shorter than %d",
                    opcode, length, min));
        }
    }

    /** SENDs a 16-byte IU of the short layout: {@code opcode}, zeros, {@code tag}. */
    private void sendShortIu(int opcode, long tag) throws IOException {
        int buffer = connection.takeSendBuffer();
        long at = connection.sendOffset(buffer);
        memory.set(INT, at, opcode << 24);
        memory.set(INT, at + WORD_OFFSET, 0);
        memory.set(LONG, at + TAG_OFFSET, tag);
        connection.postSend(buffer, SHORT_IU_LENGTH);
    }

    // ------------------------------------------------------------------ end

    public boolean isOpen() {
        return connection.isOpen();
    }

    /**
     * Ends the channel from our side (r16a 6.12): an SRP_I_LOGOUT, then, once it has left (at most
     * the read timeout), the disconnect. Best effort: a channel already gone is just closed.
     */
    public void logout() {
        try {
            if (connection.isOpen()) {
                sendShortIu(I_LOGOUT, LOGIN_TAG);
                connection.flushSends();
            }
        } catch (IOException | RuntimeException e) {
            // the channel is going away anyway
        } finally {
            close();
        }
    }

    /** Disconnects without a logout and frees everything (event loop, queue pair, registered memory). */
    @Override
    public void close() {
        connection.close();
    }
}
