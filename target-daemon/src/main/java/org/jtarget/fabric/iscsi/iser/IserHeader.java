package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.ByteBuf;

/**
 * The iSER header that starts every SEND of an iSER connection (RFC 7145 9.2; Linux
 * {@code struct iser_ctrl} in include/scsi/iser.h), decoded into this reusable object so that the
 * I/O path allocates nothing. Big-endian, 28 bytes for an iSCSI control-type PDU:
 *
 * <pre>
 *   byte 0      opcode (high nibble: 0x1 control-type PDU, 0x2 Hello, 0x3 HelloReply)
 *               | W 0x08 (write STag valid) | R 0x04 (read STag valid)
 *   bytes 1-3   reserved
 *   bytes 4-7   write STag        bytes 8-15   write base offset
 *   bytes 16-19 read STag         bytes 20-27  read base offset
 * </pre>
 *
 * The write STag and base offset name the initiator's buffer that the target RDMA READs a
 * command's Data-Out from; the read STag and base offset the buffer it RDMA WRITEs Data-In into.
 * Reserved bits are sent as zero and ignored on receipt (RFC 7145 9.2). Hello and HelloReply
 * (12 bytes, {@link IserHello}) share the opcode nibble.
 */
public final class IserHeader {

    /** Length of the iSER header of an iSCSI control-type PDU. */
    public static final int LENGTH = 28;
    /** Length of a Hello or HelloReply message. */
    public static final int HELLO_LENGTH = 12;

    /** Opcode nibbles (byte 0 >> 4). */
    public static final int CONTROL = 0x1;
    public static final int HELLO = 0x2;
    public static final int HELLO_REPLY = 0x3;

    /** Byte 0: the write STag and base offset are valid (the command has Data-Out to fetch). */
    public static final int WRITE_STAG_VALID = 0x08;
    /** Byte 0: the read STag and base offset are valid (the command has Data-In to place). */
    public static final int READ_STAG_VALID = 0x04;

    private static final int WRITE_STAG_OFFSET = 4;
    private static final int WRITE_BASE_OFFSET = 8;
    private static final int READ_STAG_OFFSET = 16;
    private static final int READ_BASE_OFFSET = 20;

    private int opcode;
    private boolean writeStagValid;
    private int writeStag;
    private long writeBaseOffset;
    private boolean readStagValid;
    private int readStag;
    private long readBaseOffset;

    /** What {@link #decode} made of a message's first bytes. */
    public enum Status {
        /** An iSCSI control-type PDU follows the 28 bytes. */
        CONTROL,
        /** The message is a Hello ({@link IserHello}). */
        HELLO,
        /** The message is a HelloReply ({@link IserHello}). */
        HELLO_REPLY,
        /** Shorter than its opcode's header. */
        TOO_SHORT,
        /** An opcode RFC 7145 does not define. */
        UNKNOWN_OPCODE
    }

    /**
     * Decodes the header at {@code index} of a message of {@code length} bytes. Only a
     * {@link Status#CONTROL} result fills the STag fields; every other result clears them.
     */
    public Status decode(ByteBuf in, int index, int length) {
        clear();
        if (length < 1) {
            return Status.TOO_SHORT;
        }
        int flags = in.getUnsignedByte(index);
        opcode = flags >>> 4;
        return switch (opcode) {
            case CONTROL -> decodeControl(in, index, length, flags);
            case HELLO -> length < HELLO_LENGTH ? Status.TOO_SHORT : Status.HELLO;
            case HELLO_REPLY -> length < HELLO_LENGTH ? Status.TOO_SHORT : Status.HELLO_REPLY;
            default -> Status.UNKNOWN_OPCODE;
        };
    }

    private Status decodeControl(ByteBuf in, int index, int length, int flags) {
        if (length < LENGTH) {
            return Status.TOO_SHORT;
        }
        writeStagValid = (flags & WRITE_STAG_VALID) != 0;
        readStagValid = (flags & READ_STAG_VALID) != 0;
        if (writeStagValid) {
            writeStag = in.getInt(index + WRITE_STAG_OFFSET);
            writeBaseOffset = in.getLong(index + WRITE_BASE_OFFSET);
        }
        if (readStagValid) {
            readStag = in.getInt(index + READ_STAG_OFFSET);
            readBaseOffset = in.getLong(index + READ_BASE_OFFSET);
        }
        return Status.CONTROL;
    }

    private void clear() {
        opcode = 0;
        writeStagValid = readStagValid = false;
        writeStag = readStag = 0;
        writeBaseOffset = readBaseOffset = 0;
    }

    /**
     * Writes the 28-byte header of a control-type PDU at {@code index} (absolute; indices of
     * {@code out} unchanged). A STag of a direction the PDU does not use is written as zero.
     */
    public static void encodeControl(ByteBuf out, int index, boolean writeValid, int writeStag, long writeBase,
                                     boolean readValid, int readStag, long readBase) {
        int flags = CONTROL << 4 | (writeValid ? WRITE_STAG_VALID : 0) | (readValid ? READ_STAG_VALID : 0);
        out.setInt(index, flags << 24); // flags, then three reserved bytes
        out.setInt(index + WRITE_STAG_OFFSET, writeValid ? writeStag : 0);
        out.setLong(index + WRITE_BASE_OFFSET, writeValid ? writeBase : 0);
        out.setInt(index + READ_STAG_OFFSET, readValid ? readStag : 0);
        out.setLong(index + READ_BASE_OFFSET, readValid ? readBase : 0);
    }

    /** The header of a PDU the target sends: control-type, no STag (RFC 7145 9.2: W and R are 0). */
    public static void encodeTargetControl(ByteBuf out, int index) {
        encodeControl(out, index, false, 0, 0, false, 0, 0);
    }

    public int opcode() { return opcode; }
    public boolean writeStagValid() { return writeStagValid; }
    public int writeStag() { return writeStag; }
    public long writeBaseOffset() { return writeBaseOffset; }
    public boolean readStagValid() { return readStagValid; }
    public int readStag() { return readStag; }
    public long readBaseOffset() { return readBaseOffset; }
}
