package org.jtarget.ha;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The persistent, crash-safe record of the dirty regions of one replicated LU: the regions the
 * peer may not have. A primary keeps one per LU so that a returning secondary is resynchronised
 * region by region ({@link #nextDirtyRegion}, {@link #clear}) instead of copied whole.
 *
 * <p>Two parts, in one file under the directory given to {@link #open} ({@code <name>.drl}):
 * <ul>
 *   <li>a <b>bitmap</b>, one bit a region of {@code regionSize} bytes, kept in memory and written
 *       lazily: by {@link #flush} (the caller's periodic business), when an extent is evicted from
 *       the activity table, and at {@link #close};</li>
 *   <li>an <b>activity table</b> of the extents ({@code extentRegions} regions each) that may have
 *       writes in flight, written and forced <em>before</em> a write on an extent not in it is
 *       issued. After a crash of either node such writes may have reached one node and not the
 *       other, so {@link #open} without a clean {@link #close} dirties every region of every
 *       extent in the table. The table is small and changes only when a cold extent becomes hot,
 *       so the cost on a write is a forced table write per activation, nothing on a hot extent.</li>
 * </ul>
 * The bits of an extent reach the file before the table stops naming it, so that a bit set by a
 * write ({@link #endWrite} not replicated, {@link #markDirty} while the write is in progress) is
 * always covered by one of the two. {@link #markDirty} outside a write and {@link #markAllDirty}
 * are stable only after the next {@link #flush}.
 *
 * <p>Thread-safe. {@link #beginWrite} on an active extent is a CAS on a counter, no lock, no I/O,
 * no allocation. At most {@code activeExtents} extents are active: a new one evicts the least
 * recently used extent with no write in progress, and when every active extent has writes in
 * progress, {@link #beginWrite} blocks until one of them ends.
 */
public final class DirtyRegionLog implements Closeable {

    private static final String SUFFIX = ".drl";

    private final LogGeometry geometry;
    private final DirtyRegionLogFile file;
    private final RegionBitmap bits;
    private final ActiveExtents extents;
    private final int regionShift;
    private final int extentsDirtiedAtOpen;

    private DirtyRegionLog(LogGeometry geometry, DirtyRegionLogFile file, RegionBitmap bits, int extentsDirtiedAtOpen) {
        this.geometry = geometry;
        this.file = file;
        this.bits = bits;
        this.extents = new ActiveExtents(geometry, file, bits);
        this.regionShift = geometry.regionShift();
        this.extentsDirtiedAtOpen = extentsDirtiedAtOpen;
    }

    /**
     * Opens the log {@code <dir>/<name>.drl}, creating it (and {@code dir}) when missing. A log
     * left without a clean close has every region of its active extents dirtied, and that made
     * stable, before this returns. A log made with other {@code extentRegions} or
     * {@code activeExtents} is recovered with its own, then rewritten with these.
     *
     * @param lengthBytes   the LU's length
     * @param regionSize    bytes a bit stands for, a power of two (e.g. 4 KiB)
     * @param extentRegions regions an activity extent stands for (e.g. 1024: 4 MiB extents)
     * @param activeExtents extents active at once at most (e.g. 64)
     * @throws IOException a file that is not a dirty region log, is corrupt, or was made for
     *                     another LU length or region size; the message names the file
     * @throws IllegalArgumentException a geometry that is not one (region size not a power of two...)
     */
    public static DirtyRegionLog open(Path dir, String name, long lengthBytes, int regionSize, int extentRegions,
                                      int activeExtents) throws IOException {
        LogGeometry wanted = new LogGeometry(lengthBytes, regionSize, extentRegions, activeExtents);
        Path path = dir.resolve(fileName(name));
        if (!Files.exists(path)) {
            RegionBitmap bits = new RegionBitmap(wanted);
            return new DirtyRegionLog(wanted, DirtyRegionLogFile.create(path, wanted, bits), bits, 0);
        }
        DirtyRegionLogFile file = DirtyRegionLogFile.open(path);
        try {
            return recover(file, wanted);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * Called BEFORE a write is issued to the local store and the peer: returns once the extents
     * covering the range are recorded active on stable storage. Every call is paired with one
     * {@link #endWrite} of the same range. Blocks while every active extent has writes in progress.
     *
     * @throws IOException             the table could not be written: the write must not be issued
     * @throws IllegalArgumentException a range outside the LU, or covering more extents than may
     *                                 be active at once
     */
    public void beginWrite(long offsetBytes, long lengthBytes) throws IOException {
        checkRange(offsetBytes, lengthBytes);
        if (lengthBytes > 0) {
            int first = extentOf(offsetBytes);
            int last = extentOf(offsetBytes + lengthBytes - 1);
            if (last - first >= geometry.activeExtents()) {
                throw new IllegalArgumentException("a write of " + lengthBytes + " bytes covers " + (last - first + 1)
                        + " extents, more than the " + geometry.activeExtents() + " that may be active");
            }
            extents.pin(first, last);
        }
    }

    /**
     * {@link #beginWrite} when it needs neither I/O nor a wait (every extent of the range is active
     * already): true when begun; false when nothing was done (the caller takes the blocking path).
     */
    public boolean tryBeginWrite(long offsetBytes, long lengthBytes) {
        checkRange(offsetBytes, lengthBytes);
        return lengthBytes > 0 && extents.tryPinAll(extentOf(offsetBytes), extentOf(offsetBytes + lengthBytes - 1));
    }

    /**
     * Called once both sides answered (or gave up) for a write begun by {@link #beginWrite}.
     *
     * @param replicated false when the peer did not take the write: its regions become dirty
     */
    public void endWrite(long offsetBytes, long lengthBytes, boolean replicated) {
        checkRange(offsetBytes, lengthBytes);
        if (lengthBytes > 0) {
            if (!replicated) {
                setRegions(offsetBytes, lengthBytes); // before the unpin: an eviction then sees the bits
            }
            extents.unpin(extentOf(offsetBytes), extentOf(offsetBytes + lengthBytes - 1));
        }
    }

    /** Dirties the regions of a range, e.g. those of a write whose outcome at the peer is unknown. */
    public void markDirty(long offsetBytes, long lengthBytes) {
        checkRange(offsetBytes, lengthBytes);
        if (lengthBytes > 0) {
            setRegions(offsetBytes, lengthBytes);
        }
    }

    /** Dirties every region, for a peer that lost all its data (e.g. a memory store). */
    public void markAllDirty() {
        bits.setAll();
    }

    /** Bytes of the LU in dirty regions (a short last region counts its own length). */
    public long dirtyBytes() {
        long bytes = bits.count() << regionShift;
        long lastRegion = regionCount() - 1;
        long shortfall = (regionCount() << regionShift) - geometry.lengthBytes();
        return shortfall > 0 && bits.isSet(lastRegion) ? bytes - shortfall : bytes;
    }

    public boolean isClean() {
        return bits.count() == 0;
    }

    /** The first dirty region at or after {@code fromRegion}, or -1 when there is none. */
    public long nextDirtyRegion(long fromRegion) {
        return bits.next(fromRegion);
    }

    /** How many dirty regions follow one another from the dirty region {@code region}, at most {@code max}. */
    public int dirtyRun(long region, int max) {
        int n = 1;
        while (n < max && region + n < regionCount() && bits.next(region + n) == region + n) {
            n++;
        }
        return n;
    }

    /**
     * Marks a region clean once the resync copied it to the peer. The caller keeps writes to the
     * region from running between its copy and this call: a write the peer missed meanwhile would
     * otherwise lose its bit. Stable at the next {@link #flush}; lost before, the region is only
     * copied again.
     */
    public void clear(long region) {
        if (region < 0 || region >= regionCount()) {
            throw new IllegalArgumentException("region " + region + " outside 0.." + (regionCount() - 1));
        }
        bits.clear(region);
    }

    /**
     * Marks every region clean: this node's copy became the peer's (the peer copied its data here),
     * so nothing here is missing there. Stable at the next {@link #flush}.
     */
    public void clearAll() {
        for (long r = bits.next(0); r >= 0; r = bits.next(r + 1)) {
            bits.clear(r);
        }
    }

    public int regionSize() {
        return geometry.regionSize();
    }

    public long regionCount() {
        return geometry.regionCount();
    }

    /** Extents found active at open after an unclean shutdown, whose regions were all dirtied. */
    public int extentsDirtiedAtOpen() {
        return extentsDirtiedAtOpen;
    }

    /** The log's file. */
    public Path path() {
        return file.path();
    }

    /** Writes the bitmap pages changed since their last write and forces them. */
    public void flush() throws IOException {
        flushChangedPages();
    }

    /** {@link #flush}, counting the pages it wrote. */
    int flushChangedPages() throws IOException {
        return file.writeChangedPages(bits);
    }

    /**
     * Flushes, then records a clean shutdown (an activity table without the idle extents) so the
     * next open dirties nothing. Writes still in progress keep their extents recorded: the next
     * open dirties those. No write may begin after this.
     */
    @Override
    public void close() throws IOException {
        try {
            extents.close();
        } finally {
            file.close();
        }
    }

    private static DirtyRegionLog recover(DirtyRegionLogFile file, LogGeometry wanted) throws IOException {
        LogGeometry found = file.geometry();
        if (!found.sameRegions(wanted)) {
            throw new IOException(file.path() + ": dirty region log of a " + found.lengthBytes() + "-byte LU in "
                    + found.regionSize() + "-byte regions, not " + wanted.lengthBytes() + " in "
                    + wanted.regionSize() + ": move it away to start afresh (the peer then needs a full resync)");
        }
        RegionBitmap bits = new RegionBitmap(wanted);
        file.readBitmap(bits);
        int[] active = file.readTable();
        for (int extent : active) {
            bits.set(found.firstRegionOfExtent(extent), found.endRegionOfExtent(extent));
        }
        if (!found.equals(wanted)) {
            file.close();
            return new DirtyRegionLog(wanted, DirtyRegionLogFile.create(file.path(), wanted, bits), bits, active.length);
        }
        if (active.length > 0) {
            file.writeChangedPages(bits); // the dirtied extents are stable before the table forgets them
            file.writeTable(active, 0);
        }
        return new DirtyRegionLog(wanted, file, bits, active.length);
    }

    private void setRegions(long offsetBytes, long lengthBytes) {
        bits.set(offsetBytes >>> regionShift, ((offsetBytes + lengthBytes - 1) >>> regionShift) + 1);
    }

    private int extentOf(long offsetBytes) {
        return (int) ((offsetBytes >>> regionShift) / geometry.extentRegions());
    }

    private void checkRange(long offsetBytes, long lengthBytes) {
        if (offsetBytes < 0 || lengthBytes < 0 || lengthBytes > geometry.lengthBytes() - offsetBytes) {
            throw new IllegalArgumentException("range " + offsetBytes + "+" + lengthBytes + " outside the LU of "
                    + geometry.lengthBytes() + " bytes");
        }
    }

    private static String fileName(String name) {
        if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("a dirty region log name is a plain file name: '" + name + "'");
        }
        return name + SUFFIX;
    }
}
