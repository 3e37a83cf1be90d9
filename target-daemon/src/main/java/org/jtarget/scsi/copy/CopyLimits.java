package org.jtarget.scsi.copy;

/**
 * What the copy manager accepts in an EXTENDED COPY(LID1) parameter list. The same numbers are
 * reported by RECEIVE COPY RESULTS OPERATING PARAMETERS (SPC-4 6.18.4) and the Third-party Copy
 * VPD page (SPC-4 7.8.17) and enforced by {@link CopyParameterList}: one table, no drift.
 */
public final class CopyLimits {

    /** MAXIMUM CSCD DESCRIPTOR COUNT. */
    public static final int MAX_CSCD_DESCRIPTORS = 8;
    /** MAXIMUM SEGMENT DESCRIPTOR COUNT. */
    public static final int MAX_SEGMENT_DESCRIPTORS = 32;
    /**
     * MAXIMUM DESCRIPTOR LIST LENGTH (CSCD + segment descriptor lists, bytes): room for the
     * maximum counts of the largest supported descriptors (8 x 32 + 32 x 28 = 1152).
     */
    public static final int MAX_DESCRIPTOR_LIST_LENGTH = 2048;
    /** MAXIMUM SEGMENT LENGTH in bytes (one block-to-block segment). */
    public static final int MAX_SEGMENT_LENGTH = 64 << 20;
    /** MAXIMUM INLINE DATA LENGTH: inline data (segment types 04h, 05h...) is not supported. */
    public static final int MAX_INLINE_DATA_LENGTH = 0;
    /** HELD DATA LIMIT: no segment type that holds data is supported. */
    public static final int HELD_DATA_LIMIT = 0;
    /** TOTAL CONCURRENT COPIES / MAXIMUM (IDENTIFIED) CONCURRENT COPIES per LU. */
    public static final int MAX_CONCURRENT_COPIES = 16;
    /** Bytes moved per read/write step (pooled buffer size). */
    public static final int CHUNK_BYTES = 1 << 20;

    /** Identification CSCD descriptor (SPC-4 6.4.5.x, "Identification Descriptor CSCD descriptor"). */
    public static final int CSCD_IDENTIFICATION = 0xE4;
    /** Block device to block device segment descriptor (SPC-4 6.4.6.5). */
    public static final int SEGMENT_BLOCK_TO_BLOCK = 0x02;
    /** The descriptor type codes implemented, ascending (OPERATING PARAMETERS, VPD 8Fh). */
    static final int[] IMPLEMENTED_DESCRIPTOR_TYPES = {SEGMENT_BLOCK_TO_BLOCK, CSCD_IDENTIFICATION};

    private CopyLimits() {
    }
}
