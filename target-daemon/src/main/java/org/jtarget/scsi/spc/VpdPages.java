package org.jtarget.scsi.spc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.copy.ThirdPartyCopyVpd;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LuIdentity;
import org.jtarget.scsi.sbc.SbcLimits;
import org.jtarget.scsi.sbc.SbcProvisioning;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;

import java.nio.charset.StandardCharsets;

/**
 * Vital product data pages (SPC-4 7.8, SBC-4 6.6). Every page starts with
 * <pre>0 qualifier/device type | 1 PAGE CODE | 2..3 PAGE LENGTH | 4.. page</pre>
 */
final class VpdPages {

    static final int DIRECT_ACCESS_BLOCK_DEVICE = 0x00;
    static final int SUPPORTED_PAGES = 0x00;
    static final int UNIT_SERIAL_NUMBER = 0x80;
    static final int DEVICE_IDENTIFICATION = 0x83;
    static final int THIRD_PARTY_COPY = ThirdPartyCopyVpd.PAGE_CODE;
    static final int BLOCK_LIMITS = 0xB0;
    static final int BLOCK_DEVICE_CHARACTERISTICS = 0xB1;
    static final int LOGICAL_BLOCK_PROVISIONING = 0xB2;
    private static final int[] PAGES = {SUPPORTED_PAGES, UNIT_SERIAL_NUMBER, DEVICE_IDENTIFICATION,
            THIRD_PARTY_COPY, BLOCK_LIMITS, BLOCK_DEVICE_CHARACTERISTICS, LOGICAL_BLOCK_PROVISIONING};
    static final int PAGE_LENGTH_OFFSET = 2;
    /** Block Limits byte 32 bit 7: UNMAP GRANULARITY ALIGNMENT is valid. */
    private static final int UGAVALID = 0x8000_0000;
    /** Logical Block Provisioning byte 5 (SBC-4 6.6.5): LBPU(7) LBPWS(6) LBPWS10(5) LBPRZ(4..2). */
    private static final int LBPU = 0x80;
    private static final int LBPWS = 0x40;
    private static final int LBPWS10 = 0x20;
    private static final int LBPRZ_ZEROS = 0x04;
    /** Block Device Characteristics byte 7 bits 7..6 (SBC-4 6.6.2): reads after BLOCK ERASE succeed. */
    private static final int WABEREQ_READ_OK = 0x40;
    /** Block Device Characteristics byte 7 bits 5..4 (SBC-4 6.6.2): reads after CRYPTOGRAPHIC ERASE succeed. */
    private static final int WACEREQ_READ_OK = 0x10;

    // SPC-4 7.8.6.1 designator header byte 0: PROTOCOL IDENTIFIER (7..4) | CODE SET (3..0)
    private static final int CODE_SET_BINARY = 1;
    private static final int CODE_SET_ASCII = 2;
    private static final int CODE_SET_UTF8 = 3;
    // byte 1: PIV (7) | ASSOCIATION (5..4) | DESIGNATOR TYPE (3..0)
    private static final int PIV = 0x80;
    private static final int ASSOC_LU = 0x00;
    private static final int ASSOC_TARGET_PORT = 0x10;
    private static final int ASSOC_TARGET_DEVICE = 0x20;
    private static final int TYPE_T10_VENDOR = 1;
    private static final int TYPE_NAA = 3;
    private static final int TYPE_RELATIVE_TARGET_PORT = 4;
    private static final int TYPE_TARGET_PORT_GROUP = 5;
    private static final int TYPE_SCSI_NAME = 8;

    private VpdPages() {
    }

    /**
     * True if {@code lu} has page {@code page}. The Logical Block Provisioning page is listed only
     * on a thin LU (SBC-4 6.6.1: required when LBPME = 1); a fully provisioned LU has nothing to
     * say in it.
     */
    static boolean supports(int page, LogicalUnit lu) {
        if (page == LOGICAL_BLOCK_PROVISIONING) {
            return SbcProvisioning.lbpme(lu);
        }
        for (int p : PAGES) {
            if (p == page) {
                return true;
            }
        }
        return false;
    }

    /** Writes page {@code page} (which {@link #supports}) for the context's LU and nexus. */
    static void write(ByteBuf b, int page, CommandContext ctx) {
        LogicalUnit lu = ctx.lu();
        b.writeByte(DIRECT_ACCESS_BLOCK_DEVICE);
        b.writeByte(page);
        b.writeShort(0); // page length, patched below
        switch (page) {
            case SUPPORTED_PAGES -> {
                for (int p : PAGES) {
                    if (supports(p, lu)) {
                        b.writeByte(p);
                    }
                }
            }
            case UNIT_SERIAL_NUMBER -> b.writeBytes(lu.identity().serial().getBytes(StandardCharsets.US_ASCII));
            case DEVICE_IDENTIFICATION -> writeDesignators(b, lu, ctx.target().targetName(), ctx.cmd().nexus());
            case THIRD_PARTY_COPY -> ThirdPartyCopyVpd.write(b); // SPC-4 7.8.17 (3PC = 1)
            case BLOCK_LIMITS -> writeBlockLimits(b, lu);
            case BLOCK_DEVICE_CHARACTERISTICS -> writeCharacteristics(b, lu);
            default -> writeProvisioning(b, lu);
        }
        b.setShort(PAGE_LENGTH_OFFSET, b.writerIndex() - 4);
    }

    private static void writeDesignators(ByteBuf b, LogicalUnit lu, String targetName, ITNexus nexus) {
        byte[] naa = lu.identity().naa();
        header(b, CODE_SET_BINARY, ASSOC_LU | TYPE_NAA, naa.length);
        b.writeBytes(naa);
        byte[] t10 = (LuIdentity.VENDOR + lu.identity().serial()).getBytes(StandardCharsets.US_ASCII);
        header(b, CODE_SET_ASCII, ASSOC_LU | TYPE_T10_VENDOR, t10.length);
        b.writeBytes(t10);
        if (nexus != null) {
            int protocol = nexus.protocol().code() << 4;
            scsiName(b, protocol, ASSOC_TARGET_PORT, nexus.targetPortName());
            header(b, protocol | CODE_SET_BINARY, PIV | ASSOC_TARGET_PORT | TYPE_RELATIVE_TARGET_PORT, 4);
            b.writeShort(0);
            b.writeShort(nexus.relativeTargetPortId());
            header(b, protocol | CODE_SET_BINARY, PIV | ASSOC_TARGET_PORT | TYPE_TARGET_PORT_GROUP, 4);
            b.writeShort(0);
            b.writeShort(nexus.targetPortGroup());
        }
        // the target device's name: the protocol of the nexus asking (a device has one name per protocol)
        scsiName(b, nexus == null ? ProtocolId.ISCSI.code() << 4 : nexus.protocol().code() << 4,
                ASSOC_TARGET_DEVICE, targetName);
    }

    /** SPC-4 7.8.6.11: SCSI name string, UTF-8, null-terminated and padded to a multiple of 4. */
    private static void scsiName(ByteBuf b, int protocol, int association, String name) {
        byte[] s = name.getBytes(StandardCharsets.UTF_8);
        int len = (s.length + 1 + 3) & ~3;
        header(b, protocol | CODE_SET_UTF8, PIV | association | TYPE_SCSI_NAME, len);
        b.writeBytes(s);
        b.writeZero(len - s.length);
    }

    private static void header(ByteBuf b, int byte0, int byte1, int length) {
        b.writeByte(byte0);
        b.writeByte(byte1);
        b.writeByte(0);
        b.writeByte(length);
    }

    /** SBC-4 6.6.4, page length 3Ch. */
    private static void writeBlockLimits(ByteBuf b, LogicalUnit lu) {
        b.writeByte(0); // WSNZ
        b.writeByte(SbcLimits.maxCompareAndWriteBlocks(lu)); // MAXIMUM COMPARE AND WRITE LENGTH
        b.writeShort(1 << lu.info().logicalBlocksPerPhysicalBlockExponent()); // OPTIMAL TRANSFER LENGTH GRANULARITY: a physical block
        b.writeInt(SbcLimits.maxTransferBlocks(lu));
        b.writeInt(lu.info().optimalTransferBlocks());
        b.writeInt(0); // MAXIMUM PREFETCH LENGTH
        b.writeInt((int) SbcProvisioning.maxUnmapLbaCount(lu));
        b.writeInt(SbcProvisioning.maxUnmapDescriptors(lu));
        int granularity = SbcProvisioning.unmapGranularity(lu);
        b.writeInt(granularity); // OPTIMAL UNMAP GRANULARITY
        // UGAVALID(31) | UNMAP GRANULARITY ALIGNMENT: units start at LBA 0
        b.writeInt(granularity > 0 ? UGAVALID : 0);
        b.writeLong(SbcProvisioning.maxWriteSameBlocks(lu)); // MAXIMUM WRITE SAME LENGTH
        // WRITE ATOMIC (16): any LBA (ATOMIC ALIGNMENT 0), any length (GRANULARITY 0), no atomic
        // boundaries (MAXIMUM ATOMIC TRANSFER LENGTH WITH ATOMIC BOUNDARY, MAXIMUM ATOMIC BOUNDARY SIZE 0)
        b.writeInt(SbcLimits.maxAtomicTransferBlocks(lu));
        b.writeZero(0x40 - b.writerIndex());
    }

    /**
     * SBC-4 6.6.2, page length 3Ch: MEDIUM ROTATION RATE 0001h = non-rotating (memory); byte 7
     * WABEREQ 01b where SANITIZE BLOCK ERASE is offered (thin LU: erased blocks read as zeros
     * without error); WACEREQ 01b where SANITIZE CRYPTOGRAPHIC ERASE is offered (an encrypting
     * store: reads of its blocks complete with GOOD status and unspecified data, zeros on a thin LU),
     * else 00b.
     */
    private static void writeCharacteristics(ByteBuf b, LogicalUnit lu) {
        b.writeShort(lu.store().isNonBlocking() ? 1 : 0);
        b.writeByte(0); // PRODUCT TYPE
        b.writeByte((SbcProvisioning.lbpme(lu) ? WABEREQ_READ_OK : 0)
                | (lu.store().supportsCryptoErase() ? WACEREQ_READ_OK : 0));
        b.writeZero(0x40 - b.writerIndex());
    }

    /**
     * SBC-4 6.6.5, page length 4 (no provisioning group descriptor, DP = 0), only on a thin LU:
     * UNMAP and WRITE SAME (10)/(16) with UNMAP = 1 deallocate (LBPU, LBPWS, LBPWS10), LBPRZ
     * 001b (deallocated blocks read as zeros), ANC_SUP 0 (nothing is ever anchored), no
     * thresholds (THRESHOLD EXPONENT 0), PROVISIONING TYPE thin.
     */
    private static void writeProvisioning(ByteBuf b, LogicalUnit lu) {
        b.writeByte(0); // THRESHOLD EXPONENT
        b.writeByte(LBPU | LBPWS | LBPWS10 | (SbcProvisioning.lbprz(lu) ? LBPRZ_ZEROS : 0));
        b.writeByte(SbcProvisioning.PROVISIONING_TYPE_THIN); // MINIMUM PERCENTAGE 0
        b.writeByte(0); // THRESHOLD PERCENTAGE
    }
}
