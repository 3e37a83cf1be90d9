package org.jtarget.initiator.iser;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jtarget.initiator.raw.IscsiDigest;
import org.jtarget.initiator.raw.IscsiProtocolException;
import org.jtarget.initiator.raw.PduChannel;
import org.jtarget.initiator.raw.RawPdu;
import org.jtarget.initiator.rdma.MessageConnection;

/**
 * One iSER connection (RFC 7145) of the initiator over the iwarp provider, as a {@link PduChannel}:
 * every PDU, the login's included (iSER-assisted login), travels in an RDMA SEND behind the 28-byte
 * iSER header, and a SCSI Command's header names a data slot of registered memory (STag and
 * absolute address) that the target RDMA READs the Data-Out from and RDMA WRITEs the Data-In into.
 *
 * <p>The connection, its registered memory (receive ring, send buffers, {@link #slots()} data
 * slots) and its two ways of waiting (blocking, or driven on the connection's I/O thread) are a
 * {@link MessageConnection}, shared with the SRP initiator; this class frames iSCSI PDUs in it.
 * The connect request carries the iSER CM header 0xc0: no zero-based addresses, no SEND with
 * invalidate (the STag stays valid for every command). Not thread-safe; nothing is allocated per
 * command except the received PDU's arrays, as over TCP.
 *
 * <p>The header is encoded here from RFC 7145 9.2, not with the daemon's codec, so that a wrong
 * constant on either side fails a test instead of cancelling out.
 */
public final class IserChannel implements PduChannel, PduChannel.DirectData, PduChannel.Driven {

    /** The data segment we accept in a received PDU: our InitiatorRecvDataSegmentLength (RFC 7145 6.5). */
    public static final int RECEIVE_DATA_SEGMENT_LENGTH = 8192;
    /** The data segment the target takes in a SEND before and after login (its TargetRecvDataSegmentLength). */
    public static final int SEND_DATA_SEGMENT_LENGTH = 8192;
    /** PDUs the target may send beyond one response per command: NOP-In, Async Message, Reject. */
    public static final int UNEXPECTED_PDUS = 8;
    /** RFC 7145 9.2: the iSER header of an iSCSI control-type PDU. */
    static final int HEADER_LENGTH = 28;
    static final int CONTROL = 0x10;
    static final int WRITE_STAG_VALID = 0x08;
    static final int READ_STAG_VALID = 0x04;
    /** RFC 7145 Annex A (Linux ISER_ZBVA_NOT_SUP | ISER_SEND_W_INV_NOT_SUP): absolute addresses, no invalidation. */
    static final byte[] CM_REQUEST = {(byte) 0xc0, 0, 0, 0};

    private static final int MAX_AHS = 264;
    private static final int MESSAGE_BYTES = HEADER_LENGTH + RawPdu.BHS_LENGTH + MAX_AHS + RECEIVE_DATA_SEGMENT_LENGTH
            + 3;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MessageConnection connection;
    private final MemorySegment memory;

    private IserChannel(MessageConnection connection) {
        this.connection = connection;
        this.memory = connection.memory();
    }

    /**
     * Connects to the iSER portal at {@code host:port} with {@code slots} data slots of
     * {@code slotBytes} each (commands in flight, largest transfer).
     *
     * @param timeout for the connection, then for each {@link #read}
     */
    public static IserChannel connect(String host, int port, Duration timeout, int slots, int slotBytes)
            throws IOException {
        int messages = slots + UNEXPECTED_PDUS;
        MessageConnection.Layout layout = new MessageConnection.Layout(messages, MESSAGE_BYTES, messages,
                MESSAGE_BYTES, slots, slotBytes);
        return new IserChannel(MessageConnection.connect("iSER", host, port, layout, CM_REQUEST, timeout));
    }

    /** Null when the registered memory is locked in RAM, else why not. */
    public String unpinnedNote() {
        return connection.unpinnedNote();
    }

    // ------------------------------------------------------------------ PduChannel

    /**
     * RFC 7145 6.3-6.7: iSER on ({@code RDMAExtensions=Yes}) with the control-PDU sizes our buffers
     * hold, {@code MaxRecvDataSegmentLength} and {@code MaxOutstandingR2T} left out (they do not
     * apply), no digests, {@code InitialR2T=Yes} (no unsolicited Data-Out PDUs) and
     * {@code ImmediateData=Yes} with {@code FirstBurstLength} of one SEND's data: a write that fits
     * goes whole as immediate data in its command's SEND, any larger one goes without immediate
     * data and the target fetches all of it from the write STag's base (so no implementation can
     * disagree on where a solicited part starts).
     *
     * @throws IllegalArgumentException when the caller asked for digests, which iSER does not carry
     */
    @Override
    public Map<String, String> operationalKeys(Map<String, String> chosen) {
        Map<String, String> keys = new LinkedHashMap<>(chosen);
        for (String digest : new String[] {"HeaderDigest", "DataDigest"}) {
            if (!"None".equals(keys.getOrDefault(digest, "None"))) {
                throw new IllegalArgumentException("iSER carries no digests (RFC 7145): " + digest + "="
                        + keys.get(digest) + " cannot be offered");
            }
        }
        keys.remove("MaxRecvDataSegmentLength");
        keys.remove("MaxOutstandingR2T");
        keys.put("InitialR2T", "Yes");
        keys.put("ImmediateData", "Yes");
        keys.put("FirstBurstLength", Integer.toString(SEND_DATA_SEGMENT_LENGTH));
        keys.put("RDMAExtensions", "Yes");
        keys.put("InitiatorRecvDataSegmentLength", Integer.toString(RECEIVE_DATA_SEGMENT_LENGTH));
        keys.put("TargetRecvDataSegmentLength", Integer.toString(SEND_DATA_SEGMENT_LENGTH));
        keys.put("MaxOutstandingUnexpectedPDUs", Integer.toString(UNEXPECTED_PDUS));
        return keys;
    }

    @Override
    public DirectData directData() {
        return this;
    }

    @Override
    public Driven driven() {
        return this;
    }

    @Override
    public void send(RawPdu pdu, boolean headerDigest, boolean dataDigest, IscsiDigest.Kind corrupt)
            throws IOException {
        requireNoDigests(headerDigest, dataDigest, corrupt);
        postPdu(pdu, 0, 0, 0);
    }

    @Override
    public void sendBytes(byte[] bytes) throws IOException {
        if (bytes.length > connection.layout().sendBytes()) {
            throw new IllegalArgumentException(bytes.length + " bytes do not fit one SEND");
        }
        int buffer = connection.takeSendBuffer();
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, connection.sendOffset(buffer), bytes.length);
        connection.postSend(buffer, bytes.length);
    }

    @Override
    public RawPdu read(int maxDataSegmentLength, boolean headerDigest, boolean dataDigest) throws IOException {
        requireNoDigests(headerDigest, dataDigest, null);
        return connection.awaitMessage() ? takeMessage(maxDataSegmentLength) : null; // null: flushed, the connection is gone
    }

    /** The oldest received PDU, its receive buffer posted again. */
    private RawPdu takeMessage(int maxDataSegmentLength) throws IOException {
        try {
            return parse(connection.messageOffset(), connection.messageLength(), maxDataSegmentLength);
        } finally {
            connection.releaseMessage();
        }
    }

    @Override
    public void readTimeout(Duration timeout) {
        connection.readTimeout(timeout);
    }

    /** iSER has no half-close: the connection is closed. */
    @Override
    public void shutdownOutput() {
        close();
    }

    @Override
    public boolean isOpen() {
        return connection.isOpen();
    }

    /** Disconnects and frees everything (event loop, queue pair, registered memory). */
    @Override
    public void close() {
        connection.close();
    }

    // ------------------------------------------------------------------ Driven

    @Override
    public void drive(Step step) throws IOException {
        connection.drive(step::run);
    }

    @Override
    public RawPdu poll(int maxDataSegmentLength) throws IOException {
        return connection.pollMessage() ? takeMessage(maxDataSegmentLength) : null;
    }

    // ------------------------------------------------------------------ DirectData

    @Override
    public int slots() {
        return connection.layout().slots();
    }

    @Override
    public int slotBytes() {
        return connection.layout().slotBytes();
    }

    @Override
    public void stage(int slot, byte[] from, int offset, int length) {
        connection.stage(slot, from, offset, length);
    }

    @Override
    public void take(int slot, byte[] into, int offset, int length) {
        connection.take(slot, into, offset, length);
    }

    @Override
    public void sendCommand(RawPdu command, int slot, int readLength, int writeLength) throws IOException {
        connection.checkSlot(slot, Math.max(readLength, writeLength));
        int flags = (writeLength > 0 ? WRITE_STAG_VALID : 0) | (readLength > 0 ? READ_STAG_VALID : 0);
        postPdu(command, flags, connection.slotAddress(slot), connection.rkey());
    }

    // ------------------------------------------------------------------ sending

    /** Writes the iSER header (STags of {@code flags}' directions naming {@code address}) and the PDU into a send buffer and posts it. */
    private void postPdu(RawPdu pdu, int flags, long address, int stag) throws IOException {
        byte[] ahs = pdu.ahs();
        byte[] data = pdu.data();
        int length = HEADER_LENGTH + RawPdu.BHS_LENGTH + ahs.length + RawPdu.paddedLength(data.length);
        if (length > connection.layout().sendBytes()) {
            throw new IllegalArgumentException(pdu + " does not fit one " + connection.layout().sendBytes()
                    + "-byte SEND");
        }
        int buffer = connection.takeSendBuffer();
        long at = connection.sendOffset(buffer);
        writeHeader(at, flags, address, stag);
        long p = at + HEADER_LENGTH;
        MemorySegment.copy(pdu.bhs(), 0, memory, ValueLayout.JAVA_BYTE, p, RawPdu.BHS_LENGTH);
        p += RawPdu.BHS_LENGTH;
        MemorySegment.copy(ahs, 0, memory, ValueLayout.JAVA_BYTE, p, ahs.length);
        p += ahs.length;
        MemorySegment.copy(data, 0, memory, ValueLayout.JAVA_BYTE, p, data.length);
        for (int pad = data.length; pad < RawPdu.paddedLength(data.length); pad++) {
            memory.set(ValueLayout.JAVA_BYTE, p + pad, (byte) 0); // no slice object per PDU
        }
        connection.postSend(buffer, length);
    }

    /** RFC 7145 9.2: flags, three reserved bytes, write STag + base offset, read STag + base offset. */
    private void writeHeader(long at, int flags, long address, int stag) {
        boolean write = (flags & WRITE_STAG_VALID) != 0;
        boolean read = (flags & READ_STAG_VALID) != 0;
        memory.set(INT, at, (CONTROL | flags) << 24);
        memory.set(INT, at + 4, write ? stag : 0);
        memory.set(LONG, at + 8, write ? address : 0);
        memory.set(INT, at + 16, read ? stag : 0);
        memory.set(LONG, at + 20, read ? address : 0);
    }

    // ------------------------------------------------------------------ receiving

    /** The PDU of a received SEND at {@code at}: its iSER header must be a control-type one (RFC 7145 9.2). */
    private RawPdu parse(long at, int length, int maxDataSegmentLength) throws IOException {
        if (length < HEADER_LENGTH + RawPdu.BHS_LENGTH) {
            throw new IscsiProtocolException("a SEND of " + length + " bytes is shorter than an iSER header and a BHS");
        }
        int flags = memory.get(ValueLayout.JAVA_BYTE, at) & 0xff;
        if ((flags & 0xf0) != CONTROL) {
            throw new IscsiProtocolException("iSER header with opcode 0x" + Integer.toHexString(flags >>> 4)
                    + " where a control-type PDU was expected");
        }
        byte[] bhs = new byte[RawPdu.BHS_LENGTH];
        long p = at + HEADER_LENGTH;
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, p, bhs, 0, bhs.length);
        RawPdu header = RawPdu.wrap(bhs, new byte[0], new byte[0]);
        int ahsLength = header.totalAhsLength() * 4;
        int dsl = header.dataSegmentLength();
        if (dsl > maxDataSegmentLength || HEADER_LENGTH + RawPdu.BHS_LENGTH + ahsLength + dsl > length) {
            throw new IscsiProtocolException(header + " claims " + ahsLength + " bytes of AHS and " + dsl
                    + " of data in a " + length + "-byte SEND");
        }
        p += RawPdu.BHS_LENGTH;
        byte[] ahs = new byte[ahsLength];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, p, ahs, 0, ahsLength);
        byte[] data = new byte[dsl];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, p + ahsLength, data, 0, dsl);
        return RawPdu.wrap(bhs, ahs, data);
    }

    // ------------------------------------------------------------------ helpers

    private static void requireNoDigests(boolean headerDigest, boolean dataDigest, IscsiDigest.Kind corrupt) {
        if (headerDigest || dataDigest || corrupt != null) {
            throw new IllegalStateException("iSER carries no digests (RFC 7145)");
        }
    }
}
