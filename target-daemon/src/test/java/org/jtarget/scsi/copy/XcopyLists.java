package org.jtarget.scsi.copy;

import java.io.ByteArrayOutputStream;

/** Builds EXTENDED COPY(LID1) CDBs and parameter lists for tests (SPC-4 6.4). */
final class XcopyLists {

    private final ByteArrayOutputStream cscds = new ByteArrayOutputStream();
    private final ByteArrayOutputStream segments = new ByteArrayOutputStream();
    private int listId = 1;
    private int usage;
    private int inline;

    XcopyLists listId(int id, int listIdUsage) {
        this.listId = id;
        this.usage = listIdUsage;
        return this;
    }

    XcopyLists inline(int length) {
        this.inline = length;
        return this;
    }

    /** An identification CSCD descriptor (E4h, or {@code type}) naming {@code naa}. */
    XcopyLists cscd(int type, byte[] naa, int blockLength) {
        byte[] d = new byte[32];
        d[0] = (byte) type;
        d[4] = 1; // binary
        d[5] = 3; // association LU, NAA
        d[7] = (byte) naa.length;
        System.arraycopy(naa, 0, d, 8, naa.length);
        d[29] = (byte) (blockLength >>> 16);
        d[30] = (byte) (blockLength >>> 8);
        d[31] = (byte) blockLength;
        cscds.writeBytes(d);
        return this;
    }

    XcopyLists cscd(byte[] naa, int blockLength) {
        return cscd(0xE4, naa, blockLength);
    }

    /** A block-to-block segment descriptor (02h, or {@code type}). */
    XcopyLists segment(int type, int src, int dst, int blocks, long srcLba, long dstLba) {
        byte[] d = new byte[28];
        d[0] = (byte) type;
        d[3] = 0x18;
        d[4] = (byte) (src >>> 8);
        d[5] = (byte) src;
        d[6] = (byte) (dst >>> 8);
        d[7] = (byte) dst;
        d[10] = (byte) (blocks >>> 8);
        d[11] = (byte) blocks;
        for (int i = 0; i < 8; i++) {
            d[12 + i] = (byte) (srcLba >>> (56 - 8 * i));
            d[20 + i] = (byte) (dstLba >>> (56 - 8 * i));
        }
        segments.writeBytes(d);
        return this;
    }

    XcopyLists segment(int src, int dst, int blocks, long srcLba, long dstLba) {
        return segment(0x02, src, dst, blocks, srcLba, dstLba);
    }

    byte[] build() {
        byte[] h = new byte[16];
        h[0] = (byte) listId;
        h[1] = (byte) (usage << 3);
        int c = cscds.size();
        int s = segments.size();
        h[2] = (byte) (c >>> 8);
        h[3] = (byte) c;
        h[8] = (byte) (s >>> 24);
        h[9] = (byte) (s >>> 16);
        h[10] = (byte) (s >>> 8);
        h[11] = (byte) s;
        h[12] = (byte) (inline >>> 24);
        h[13] = (byte) (inline >>> 16);
        h[14] = (byte) (inline >>> 8);
        h[15] = (byte) inline;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(h);
        out.writeBytes(cscds.toByteArray());
        out.writeBytes(segments.toByteArray());
        return out.toByteArray();
    }

    static byte[] cdb(int parameterListLength) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x83;
        c[10] = (byte) (parameterListLength >>> 24);
        c[11] = (byte) (parameterListLength >>> 16);
        c[12] = (byte) (parameterListLength >>> 8);
        c[13] = (byte) parameterListLength;
        return c;
    }

    static byte[] receiveCopyResults(int serviceAction, int listId, int allocationLength) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x84;
        c[1] = (byte) serviceAction;
        c[2] = (byte) listId;
        c[10] = (byte) (allocationLength >>> 24);
        c[11] = (byte) (allocationLength >>> 16);
        c[12] = (byte) (allocationLength >>> 8);
        c[13] = (byte) allocationLength;
        return c;
    }
}
