package org.jtarget.scsi.copy;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Opcodes;

/**
 * The body of the Third-party Copy VPD page (SPC-4 7.8.17, page 8Fh) for a copy manager that
 * supports EXTENDED COPY(LID1) and RECEIVE COPY RESULTS: the third-party copy descriptors SPC-4
 * lists for those commands, each
 * <pre>0..1 THIRD-PARTY COPY DESCRIPTOR TYPE | 2..3 DESCRIPTOR LENGTH (n-3) | 4.. parameters, padded to 4</pre>
 * Supported Commands (0001h), Parameter Data (0004h), Supported Descriptors (0008h), Supported
 * CSCD Descriptor IDs (000Ch, none), General Copy Operations (8001h), Held Data (C001h). The
 * numbers are those of {@link CopyLimits}, which the copy manager enforces.
 */
public final class ThirdPartyCopyVpd {

    /** VPD page code. */
    public static final int PAGE_CODE = 0x8F;
    private static final int SUPPORTED_COMMANDS = 0x0001;
    private static final int PARAMETER_DATA = 0x0004;
    private static final int SUPPORTED_DESCRIPTORS = 0x0008;
    private static final int SUPPORTED_CSCD_IDS = 0x000C;
    private static final int GENERAL_COPY_OPERATIONS = 0x8001;
    private static final int HELD_DATA = 0xC001;

    private ThirdPartyCopyVpd() {
    }

    /** Appends the descriptors (after the 4-byte VPD header, which the caller writes). */
    public static void write(ByteBuf b) {
        int start = begin(b, SUPPORTED_COMMANDS);
        // COMMANDS SUPPORTED LIST LENGTH, then per command: OPERATION CODE, SA LIST LENGTH, SAs
        b.writeByte(3 + 4);
        b.writeByte(Opcodes.EXTENDED_COPY).writeByte(1).writeByte(0x00);
        b.writeByte(Opcodes.RECEIVE_COPY_RESULTS).writeByte(2)
                .writeByte(SpcReceiveCopyResults.COPY_STATUS).writeByte(SpcReceiveCopyResults.OPERATING_PARAMETERS);
        end(b, start);

        start = begin(b, PARAMETER_DATA);
        b.writeInt(0); // reserved
        b.writeShort(CopyLimits.MAX_CSCD_DESCRIPTORS);
        b.writeShort(CopyLimits.MAX_SEGMENT_DESCRIPTORS);
        b.writeInt(CopyLimits.MAX_DESCRIPTOR_LIST_LENGTH);
        b.writeInt(CopyLimits.MAX_INLINE_DATA_LENGTH);
        b.writeZero(12);
        end(b, start);

        start = begin(b, SUPPORTED_DESCRIPTORS);
        b.writeByte(CopyLimits.IMPLEMENTED_DESCRIPTOR_TYPES.length);
        for (int t : CopyLimits.IMPLEMENTED_DESCRIPTOR_TYPES) {
            b.writeByte(t);
        }
        end(b, start);

        start = begin(b, SUPPORTED_CSCD_IDS);
        b.writeShort(0); // no CSCD descriptor IDs above 07FFh (no null / ROD CSCDs)
        end(b, start);

        start = begin(b, GENERAL_COPY_OPERATIONS);
        b.writeInt(CopyLimits.MAX_CONCURRENT_COPIES); // TOTAL CONCURRENT COPIES
        b.writeInt(CopyLimits.MAX_CONCURRENT_COPIES); // MAXIMUM IDENTIFIED CONCURRENT COPIES
        b.writeInt(CopyLimits.MAX_SEGMENT_LENGTH);
        b.writeByte(0); // DATA SEGMENT GRANULARITY (log2)
        b.writeByte(0); // INLINE DATA GRANULARITY (log2)
        b.writeZero(18);
        end(b, start);

        start = begin(b, HELD_DATA);
        b.writeInt(CopyLimits.HELD_DATA_LIMIT);
        b.writeByte(0); // HELD DATA GRANULARITY (log2)
        b.writeZero(3);
        end(b, start);
    }

    private static int begin(ByteBuf b, int type) {
        int start = b.writerIndex();
        b.writeShort(type);
        b.writeShort(0);
        return start;
    }

    /** Pads to a multiple of 4 and patches the DESCRIPTOR LENGTH. */
    private static void end(ByteBuf b, int start) {
        while ((b.writerIndex() - start) % 4 != 0) {
            b.writeByte(0);
        }
        b.setShort(start + 2, b.writerIndex() - start - 4);
    }
}
