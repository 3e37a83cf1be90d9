package org.jtarget.ha;

/**
 * The shape of a dirty region log and where each part lies in its file. All parts start on a
 * {@link #BLOCK} boundary so that a write of one part never shares a device sector with another:
 * <pre>
 *   block 0               header ({@link #HEADER_BYTES} used)
 *   table slot 0, slot 1  the activity table, written alternately (each rounded up to blocks)
 *   bitmap                one bit a region, little-endian 64-bit words, in pages of one block
 * </pre>
 *
 * @param lengthBytes   the LU's length
 * @param regionSize    bytes a bit stands for, a power of two
 * @param extentRegions regions an extent of the activity table stands for
 * @param activeExtents how many extents may be active at once: the table's capacity
 */
record LogGeometry(long lengthBytes, int regionSize, int extentRegions, int activeExtents) {

    static final int BLOCK = 4096;
    static final int WORDS_PER_PAGE = BLOCK / Long.BYTES;
    static final int REGIONS_PER_PAGE = BLOCK * Byte.SIZE;
    /** magic (8), version, region size, length (8), extent regions, active extents, CRC32C. */
    static final int HEADER_BYTES = 36;
    /** magic, count, sequence (8), the extents (4 each), CRC32C. */
    static final int TABLE_FIXED_BYTES = 20;
    /** Keeps a table write within a few blocks: more hot extents than this is a wrong setting. */
    static final int MAX_ACTIVE_EXTENTS = 1 << 16;

    LogGeometry {
        require(lengthBytes > 0, "the LU length must be positive: " + lengthBytes);
        require(regionSize > 0 && Integer.bitCount(regionSize) == 1,
                "the region size must be a power of two: " + regionSize);
        require(extentRegions > 0, "an extent must hold at least one region: " + extentRegions);
        require(activeExtents > 0 && activeExtents <= MAX_ACTIVE_EXTENTS,
                "active extents must be 1 to " + MAX_ACTIVE_EXTENTS + ": " + activeExtents);
        long regions = Math.ceilDiv(lengthBytes, regionSize);
        // the bitmap is a long[]: its word count must be an int index
        require(Math.ceilDiv(regions, Long.SIZE) <= Integer.MAX_VALUE - WORDS_PER_PAGE,
                "too many regions for one bitmap (" + regions + "): take larger regions");
        require(Math.ceilDiv(regions, extentRegions) <= Integer.MAX_VALUE,
                "too many extents (" + Math.ceilDiv(regions, extentRegions) + "): take larger extents");
    }

    long regionCount() {
        return Math.ceilDiv(lengthBytes, regionSize);
    }

    int regionShift() {
        return Integer.numberOfTrailingZeros(regionSize);
    }

    int extentCount() {
        return (int) Math.ceilDiv(regionCount(), extentRegions);
    }

    long firstRegionOfExtent(int extent) {
        return (long) extent * extentRegions;
    }

    /** One past the last region of {@code extent} (the last extent may be short). */
    long endRegionOfExtent(int extent) {
        return Math.min(firstRegionOfExtent(extent) + extentRegions, regionCount());
    }

    int wordCount() {
        return (int) Math.ceilDiv(regionCount(), Long.SIZE);
    }

    int pageCount() {
        return Math.ceilDiv(wordCount(), WORDS_PER_PAGE);
    }

    int tableRecordBytes() {
        return TABLE_FIXED_BYTES + Integer.BYTES * activeExtents;
    }

    long tableOffset(int slot) {
        return BLOCK + (long) slot * roundUpToBlock(tableRecordBytes());
    }

    long bitmapOffset() {
        return tableOffset(2);
    }

    long pageOffset(int page) {
        return bitmapOffset() + (long) page * BLOCK;
    }

    long fileSize() {
        return pageOffset(pageCount());
    }

    /** Same length and region size: the bitmap of one is the bitmap of the other. */
    boolean sameRegions(LogGeometry other) {
        return lengthBytes == other.lengthBytes && regionSize == other.regionSize;
    }

    private static long roundUpToBlock(long bytes) {
        return Math.ceilDiv(bytes, BLOCK) * BLOCK;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
