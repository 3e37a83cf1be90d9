package org.jtarget.ha;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.jtarget.ha.LogGeometry.BLOCK;
import static org.jtarget.ha.LogGeometry.HEADER_BYTES;

/**
 * The file of a {@link DirtyRegionLog} (layout in {@link LogGeometry}), little-endian throughout.
 * <pre>
 * header  "JTDRLOG\0" | version 1 | region size | length | extent regions | active extents | CRC32C
 * table   "DRLT" | count | sequence (8) | extents (4 each, capacity of them) | CRC32C
 * </pre>
 * The table has two slots: sequence {@code n} is written to slot {@code n % 2}, so a torn write
 * leaves the previous table whole in the other slot, and the valid copy with the higher sequence
 * is the table. The bitmap has no checksum: a page torn by a crash holds, sector by sector, its
 * previous copy or its new one. A bit set since the previous copy is then still covered by the
 * table (an extent leaves the table only after its bits are forced), or was set outside any write
 * and is promised only once a flush returns; a cleared bit come back only means one more copy.
 */
final class DirtyRegionLogFile implements Closeable {

    private static final byte[] MAGIC = "JTDRLOG\0".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;
    private static final int TABLE_MAGIC = 0x544c5244; // "DRLT" little-endian
    private static final int PAGES_A_READ = 64;

    private final Path path;
    private final FileChannel channel;
    private final LogGeometry geometry;
    /** Held over the write and force of bitmap pages: an eviction then sees every flush done. */
    private final ReentrantLock bitmapLock = new ReentrantLock();
    private final ByteBuffer pageBuffer = ByteBuffer.allocateDirect(BLOCK).order(ByteOrder.LITTLE_ENDIAN);
    /** The sequence of the newest valid table; the next goes to the other slot. */
    private long tableSequence;

    private DirtyRegionLogFile(Path path, FileChannel channel, LogGeometry geometry, long tableSequence) {
        this.path = path;
        this.channel = channel;
        this.geometry = geometry;
        this.tableSequence = tableSequence;
    }

    /**
     * Writes a new file with an empty table and {@code bits}, atomically: a temporary file, forced,
     * renamed over {@code path}, then the directory forced, so a crash leaves the old file or the
     * new one, never a part.
     */
    static DirtyRegionLogFile create(Path path, LogGeometry geometry, RegionBitmap bits) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temporary = path.resolveSibling(path.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(temporary, CREATE, TRUNCATE_EXISTING, READ, WRITE)) {
            DirtyRegionLogFile file = new DirtyRegionLogFile(temporary, ch, geometry, -1);
            file.writeHeader();
            file.writeTable(new int[0], 0);
            writeFully(ch, ByteBuffer.allocate(1), geometry.fileSize() - 1); // the rest reads as zeros
            file.writeAllSetPages(bits);
            ch.force(true);
        }
        moveAtomically(temporary, path);
        forceDirectory(dir);
        DirtyRegionLogFile file = open(path);
        try {
            file.readTable(); // its sequence: the next table must not overwrite the only copy
            return file;
        } catch (IOException e) {
            file.close();
            throw e;
        }
    }

    /** Opens an existing file and checks its header; the table and bitmap are read separately. */
    static DirtyRegionLogFile open(Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, READ, WRITE);
        try {
            lockExclusively(channel, path);
            LogGeometry geometry = readHeader(channel, path);
            if (channel.size() < geometry.fileSize()) {
                throw new IOException(path + ": truncated dirty region log (" + channel.size() + " bytes, "
                        + geometry.fileSize() + " expected)");
            }
            return new DirtyRegionLogFile(path, channel, geometry, -1);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    Path path() {
        return path;
    }

    LogGeometry geometry() {
        return geometry;
    }

    /** The active extents recorded, from the newest valid table copy. */
    int[] readTable() throws IOException {
        TableCopy newest = null;
        for (int slot = 0; slot < 2; slot++) {
            TableCopy copy = readTableSlot(slot);
            if (copy != null && (newest == null || copy.sequence() > newest.sequence())) {
                newest = copy;
            }
        }
        if (newest == null) {
            throw new IOException(path + ": corrupt dirty region log: no valid activity table "
                    + "(both copies fail their check)");
        }
        tableSequence = newest.sequence();
        return newest.extents();
    }

    void readBitmap(RegionBitmap bits) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(PAGES_A_READ * BLOCK).order(ByteOrder.LITTLE_ENDIAN);
        for (int page = 0; page < geometry.pageCount(); page += PAGES_A_READ) {
            int pages = Math.min(PAGES_A_READ, geometry.pageCount() - page);
            buffer.clear().limit(pages * BLOCK);
            readFully(buffer, geometry.pageOffset(page));
            buffer.flip();
            for (int p = page; p < page + pages; p++) {
                bits.loadPage(p, buffer.position((p - page) * BLOCK));
            }
        }
    }

    /**
     * Writes the table of {@code count} extents to the slot not holding the newest copy and forces
     * it. Callers serialise table writes. The sequence moves on only once the copy is stable, so a
     * failed write is retried in the same slot and never overwrites the last good copy.
     */
    void writeTable(int[] extents, int count) throws IOException {
        long sequence = tableSequence + 1;
        ByteBuffer record = ByteBuffer.allocate(geometry.tableRecordBytes()).order(ByteOrder.LITTLE_ENDIAN);
        record.putInt(TABLE_MAGIC).putInt(count).putLong(sequence);
        for (int i = 0; i < count; i++) {
            record.putInt(extents[i]);
        }
        record.position(record.limit() - Integer.BYTES);
        record.putInt(crc(record, 0, record.limit() - Integer.BYTES)).flip();
        writeFully(channel, record, geometry.tableOffset((int) (sequence & 1)));
        channel.force(false);
        tableSequence = sequence;
    }

    /** Writes every page changed since it was last written and forces them. @return pages written */
    int writeChangedPages(RegionBitmap bits) throws IOException {
        bitmapLock.lock();
        try {
            int written = 0;
            for (int page = bits.nextChangedPage(0); page >= 0; page = bits.nextChangedPage(page + 1)) {
                if (bits.takeChanged(page)) {
                    writePage(channel, bits, page);
                    written++;
                }
            }
            forceIf(written > 0);
            return written;
        } finally {
            bitmapLock.unlock();
        }
    }

    /**
     * Makes the bits of the regions {@code from} to {@code to} (exclusive) stable, before the table
     * stops covering them. Their pages are written when changed, and also when they hold any of
     * these bits: a bit seen set may be another thread's whose page is not marked yet.
     */
    void writePagesOf(RegionBitmap bits, long from, long to) throws IOException {
        bitmapLock.lock();
        try {
            boolean holdsBits = bits.anySet(from, to);
            boolean written = false;
            for (int page = RegionBitmap.pageOf(from); page <= RegionBitmap.pageOf(to - 1); page++) {
                if (bits.takeChanged(page) | holdsBits) {
                    writePage(channel, bits, page);
                    written = true;
                }
            }
            forceIf(written);
        } finally {
            bitmapLock.unlock();
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    private void writeHeader() throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        header.put(MAGIC).putInt(VERSION).putInt(geometry.regionSize()).putLong(geometry.lengthBytes())
                .putInt(geometry.extentRegions()).putInt(geometry.activeExtents());
        header.putInt(crc(header, 0, header.position())).flip();
        writeFully(channel, header, 0);
    }

    /** Two logs on one file would each overwrite the other's table: a second opener is refused. */
    private static void lockExclusively(FileChannel channel, Path path) throws IOException {
        try {
            if (channel.tryLock() == null) {
                throw new IOException(path + ": dirty region log in use by another process");
            }
        } catch (OverlappingFileLockException e) {
            throw new IOException(path + ": dirty region log already open in this process", e);
        }
    }

    private static LogGeometry readHeader(FileChannel channel, Path path) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        if (channel.read(header, 0) < HEADER_BYTES) {
            throw new IOException(path + ": not a dirty region log (shorter than its header)");
        }
        byte[] magic = new byte[MAGIC.length];
        header.flip().get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new IOException(path + ": not a dirty region log (bad magic)");
        }
        if (header.getInt(HEADER_BYTES - Integer.BYTES) != crc(header, 0, HEADER_BYTES - Integer.BYTES)) {
            throw new IOException(path + ": corrupt dirty region log header (CRC32C mismatch)");
        }
        int version = header.getInt();
        if (version != VERSION) {
            throw new IOException(path + ": dirty region log version " + version + ", this daemon reads " + VERSION);
        }
        int regionSize = header.getInt();
        long length = header.getLong();
        try {
            return new LogGeometry(length, regionSize, header.getInt(), header.getInt());
        } catch (IllegalArgumentException e) {
            throw new IOException(path + ": corrupt dirty region log header: " + e.getMessage(), e);
        }
    }

    private record TableCopy(long sequence, int[] extents) {
    }

    /** The copy in {@code slot} if it is valid: its CRC32C, sequence parity and extents agree. */
    private TableCopy readTableSlot(int slot) throws IOException {
        ByteBuffer record = ByteBuffer.allocate(geometry.tableRecordBytes()).order(ByteOrder.LITTLE_ENDIAN);
        readFully(record, geometry.tableOffset(slot));
        int crcAt = record.limit() - Integer.BYTES;
        if (record.getInt(0) != TABLE_MAGIC || record.getInt(crcAt) != crc(record, 0, crcAt)) {
            return null;
        }
        int count = record.getInt(4);
        long sequence = record.getLong(8);
        if (count < 0 || count > geometry.activeExtents() || sequence < 0 || (sequence & 1) != slot) {
            return null;
        }
        int[] extents = new int[count];
        for (int i = 0; i < count; i++) {
            extents[i] = record.getInt(16 + i * Integer.BYTES);
            if (extents[i] < 0 || extents[i] >= geometry.extentCount()) {
                return null;
            }
        }
        return new TableCopy(sequence, extents);
    }

    private void writeAllSetPages(RegionBitmap bits) throws IOException {
        for (int page = 0; page < bits.pageCount(); page++) {
            long first = (long) page * LogGeometry.REGIONS_PER_PAGE;
            if (bits.anySet(first, Math.min(first + LogGeometry.REGIONS_PER_PAGE, bits.regionCount()))) {
                writePage(channel, bits, page);
            }
        }
    }

    private void writePage(FileChannel ch, RegionBitmap bits, int page) throws IOException {
        pageBuffer.clear();
        bits.copyPage(page, pageBuffer);
        writeFully(ch, pageBuffer.flip(), geometry.pageOffset(page));
    }

    private void forceIf(boolean written) throws IOException {
        if (written) {
            channel.force(false);
        }
    }

    private void readFully(ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, position);
            if (n < 0) {
                throw new EOFException(path + ": truncated dirty region log");
            }
            position += n;
        }
    }

    private static void writeFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
        }
    }

    private static int crc(ByteBuffer buffer, int from, int to) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate().limit(to).position(from));
        return (int) crc.getValue();
    }

    private static void moveAtomically(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** fsync of the directory makes the new name stable (POSIX); not every platform allows it. */
    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, READ)) {
            ch.force(true);
        } catch (IOException e) {
            // e.g. Windows cannot open a directory; the rename itself is still atomic
        }
    }
}
