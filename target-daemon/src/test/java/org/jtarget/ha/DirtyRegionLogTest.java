package org.jtarget.ha;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Geometry, bits, and what a log file keeps across close and open or refuses to open. */
class DirtyRegionLogTest {

    static final int REGION = 4096;
    static final int EXTENT_REGIONS = 16;
    static final long EXTENT = (long) REGION * EXTENT_REGIONS;
    /** 256 regions in 16 extents. */
    static final long LENGTH = 16 * EXTENT;

    @TempDir
    Path dir;

    static DirtyRegionLog open(Path dir, int activeExtents) throws IOException {
        return DirtyRegionLog.open(dir, "lun0", LENGTH, REGION, EXTENT_REGIONS, activeExtents);
    }

    @Test
    void createsAFileOfItsGeometry() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            assertThat(log.path()).isEqualTo(dir.resolve("lun0.drl")).exists();
            assertThat(Files.size(log.path()))
                    .isEqualTo(new LogGeometry(LENGTH, REGION, EXTENT_REGIONS, 4).fileSize());
            assertThat(log.regionSize()).isEqualTo(REGION);
            assertThat(log.regionCount()).isEqualTo(256);
            assertThat(log.isClean()).isTrue();
            assertThat(log.dirtyBytes()).isZero();
            assertThat(log.nextDirtyRegion(0)).isEqualTo(-1);
        }
        assertThat(dir.resolve("lun0.drl.tmp")).doesNotExist();
    }

    @Test
    void createsTheDirectory() throws IOException {
        try (DirtyRegionLog log = open(dir.resolve("ha").resolve("t1"), 4)) {
            assertThat(log.path()).exists();
        }
    }

    @Test
    void aLogIsOpenOnceAtATime() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            assertThatThrownBy(() -> open(dir, 4)).isInstanceOf(IOException.class)
                    .hasMessageContaining(log.path().toString()).hasMessageContaining("already open");
        }
        open(dir, 4).close();
    }

    @Test
    void rejectsWhatIsNoGeometry() {
        assertThatThrownBy(() -> DirtyRegionLog.open(dir, "x", LENGTH, 3000, 16, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
        assertThatThrownBy(() -> DirtyRegionLog.open(dir, "x", 0, REGION, 16, 4))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DirtyRegionLog.open(dir, "x", LENGTH, REGION, 0, 4))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DirtyRegionLog.open(dir, "x", LENGTH, REGION, 16, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DirtyRegionLog.open(dir, "../x", LENGTH, REGION, 16, 4))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void refusesALogOfAnotherLengthOrRegionSize() throws IOException {
        open(dir, 4).close();
        Path file = dir.resolve("lun0.drl");
        assertThatThrownBy(() -> DirtyRegionLog.open(dir, "lun0", LENGTH * 2, REGION, EXTENT_REGIONS, 4))
                .isInstanceOf(IOException.class).hasMessageContaining(file.toString())
                .hasMessageContaining(LENGTH + "-byte LU");
        assertThatThrownBy(() -> DirtyRegionLog.open(dir, "lun0", LENGTH, REGION * 2, EXTENT_REGIONS, 4))
                .isInstanceOf(IOException.class).hasMessageContaining(file.toString())
                .hasMessageContaining(REGION + "-byte regions");
    }

    @Test
    void clearAllCleansEveryRegionDurably() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            log.markDirty(0, REGION);
            log.markDirty(100L * REGION, 3L * REGION);
            log.markDirty(LENGTH - 1, 1); // the last region
            log.flush();
            log.clearAll();
            assertThat(log.isClean()).isTrue();
            assertThat(log.dirtyBytes()).isZero();
            log.flush();
        }
        try (DirtyRegionLog log = open(dir, 4)) {
            assertThat(log.isClean()).as("clean after a reopen").isTrue();
        }
    }

    @Test
    void setsIteratesAndClearsBits() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            log.markDirty(3L * REGION, 2L * REGION + 1); // regions 3, 4 and 5
            log.markDirty(200L * REGION + 100, 1);
            assertThat(log.dirtyBytes()).isEqualTo(4L * REGION);
            assertThat(log.nextDirtyRegion(0)).isEqualTo(3);
            assertThat(log.nextDirtyRegion(4)).isEqualTo(4);
            assertThat(log.nextDirtyRegion(6)).isEqualTo(200);
            assertThat(log.nextDirtyRegion(201)).isEqualTo(-1);
            assertThat(log.nextDirtyRegion(256)).isEqualTo(-1);

            log.clear(4);
            log.clear(4);
            assertThat(log.nextDirtyRegion(4)).isEqualTo(5);
            assertThat(log.dirtyBytes()).isEqualTo(3L * REGION);
            for (long r = log.nextDirtyRegion(0); r >= 0; r = log.nextDirtyRegion(r + 1)) {
                log.clear(r);
            }
            assertThat(log.isClean()).isTrue();
            assertThatThrownBy(() -> log.clear(256)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void onlyAWriteThePeerMissedDirtiesItsRegions() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            log.beginWrite(0, EXTENT);
            log.endWrite(0, EXTENT, true);
            assertThat(log.isClean()).isTrue();
            log.beginWrite(EXTENT - REGION, 2L * REGION); // across two extents
            log.endWrite(EXTENT - REGION, 2L * REGION, false);
            assertThat(log.nextDirtyRegion(0)).isEqualTo(EXTENT_REGIONS - 1);
            assertThat(log.nextDirtyRegion(EXTENT_REGIONS)).isEqualTo(EXTENT_REGIONS);
            assertThat(log.dirtyBytes()).isEqualTo(2L * REGION);
        }
    }

    @Test
    void everyRegionDirtyAndAShortLastRegionCountsItsLength() throws IOException {
        try (DirtyRegionLog log = DirtyRegionLog.open(dir, "short", 10_000 + 64L * REGION, REGION, 8, 2)) {
            assertThat(log.regionCount()).isEqualTo(67);
            log.markAllDirty();
            assertThat(log.dirtyBytes()).isEqualTo(10_000 + 64L * REGION);
            assertThat(log.nextDirtyRegion(66)).isEqualTo(66);
            assertThat(log.nextDirtyRegion(67)).isEqualTo(-1);
            log.clear(66);
            assertThat(log.dirtyBytes()).isEqualTo(64L * REGION + 2 * REGION);
        }
    }

    @Test
    void rangesOutsideTheLuOrWiderThanTheActiveExtentsAreRefused() throws IOException {
        try (DirtyRegionLog log = open(dir, 2)) {
            assertThatThrownBy(() -> log.beginWrite(LENGTH - 1, 2)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> log.beginWrite(-1, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> log.markDirty(0, LENGTH + 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> log.beginWrite(0, 2 * EXTENT + 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 extents");
            assertThatThrownBy(() -> log.endWrite(0, 1, true)).isInstanceOf(IllegalStateException.class);
            log.beginWrite(LENGTH, 0);
            log.endWrite(LENGTH, 0, false);
            assertThat(log.isClean()).isTrue();
        }
    }

    @Test
    void bitsSurviveCloseAndOpen() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            log.markDirty(7L * REGION, REGION);
            log.beginWrite(5 * EXTENT, REGION);
            log.endWrite(5 * EXTENT, REGION, false);
            log.beginWrite(9 * EXTENT, REGION);
            log.endWrite(9 * EXTENT, REGION, true);
        }
        try (DirtyRegionLog log = open(dir, 4)) {
            assertThat(log.extentsDirtiedAtOpen()).isZero(); // a clean close leaves no extent active
            assertThat(dirtyRegions(log)).containsExactly(7L, 5L * EXTENT_REGIONS);
        }
    }

    @Test
    void otherExtentSizeOrActiveCountRewritesTheLogKeepingItsBits() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            log.markDirty(100L * REGION, REGION);
            log.flush();
            log.beginWrite(2 * EXTENT, REGION); // in progress when the daemon stops
            DirtyRegionLogCrashTest.copyTo(log, dir.resolve("crashed"));
        }
        Path crashed = dir.resolve("crashed");
        try (DirtyRegionLog log = DirtyRegionLog.open(crashed, "lun0", LENGTH, REGION, 64, 8)) {
            assertThat(log.extentsDirtiedAtOpen()).isEqualTo(1);
            assertThat(log.dirtyBytes()).isEqualTo(EXTENT + REGION);
            assertThat(Files.size(log.path())).isEqualTo(new LogGeometry(LENGTH, REGION, 64, 8).fileSize());
        }
        try (DirtyRegionLog log = DirtyRegionLog.open(crashed, "lun0", LENGTH, REGION, 64, 8)) {
            assertThat(log.extentsDirtiedAtOpen()).isZero();
            assertThat(log.dirtyBytes()).isEqualTo(EXTENT + REGION);
        }
    }

    @Test
    void refusesACorruptHeader() throws IOException {
        open(dir, 4).close();
        Path file = dir.resolve("lun0.drl");
        flipByte(file, 17); // inside the length
        assertThatThrownBy(() -> open(dir, 4)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("CRC32C");
        flipByte(file, 17);
        flipByte(file, 0);
        assertThatThrownBy(() -> open(dir, 4)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("magic");
    }

    @Test
    void refusesATruncatedLog() throws IOException {
        open(dir, 4).close();
        Path file = dir.resolve("lun0.drl");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(Files.size(file) - 1);
        }
        assertThatThrownBy(() -> open(dir, 4)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("truncated");
    }

    @Test
    void refusesATableWhoseCopiesAreBothCorrupt() throws IOException {
        LogGeometry geometry = writeTwoTables();
        Path file = dir.resolve("lun0.drl");
        flipByte(file, geometry.tableOffset(0) + 16);
        flipByte(file, geometry.tableOffset(1) + 16);
        assertThatThrownBy(() -> open(dir, 4)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("activity table");
    }

    @Test
    void aTornTableWriteLeavesThePreviousCopy() throws IOException {
        LogGeometry geometry = writeTwoTables(); // newest: extents 3 and 6 active, seq 2 in slot 0
        flipByte(dir.resolve("lun0.drl"), geometry.tableOffset(0) + 16);
        try (DirtyRegionLog log = open(dir, 4)) {
            assertThat(log.extentsDirtiedAtOpen()).isEqualTo(1); // the older copy: extent 3 only
            assertThat(log.dirtyBytes()).isEqualTo(EXTENT);
            assertThat(log.nextDirtyRegion(0)).isEqualTo(3 * EXTENT_REGIONS);
        }
    }

    /** A crashed log whose table was written twice after creation: {3} in slot 1, {3, 6} in slot 0. */
    private LogGeometry writeTwoTables() throws IOException {
        Path live = dir.resolve("live");
        try (DirtyRegionLog log = open(live, 4)) {
            log.beginWrite(3 * EXTENT, REGION);
            log.beginWrite(6 * EXTENT, REGION);
            DirtyRegionLogCrashTest.copyTo(log, dir);
        }
        return new LogGeometry(LENGTH, REGION, EXTENT_REGIONS, 4);
    }

    static List<Long> dirtyRegions(DirtyRegionLog log) {
        List<Long> regions = new ArrayList<>();
        for (long r = log.nextDirtyRegion(0); r >= 0; r = log.nextDirtyRegion(r + 1)) {
            regions.add(r);
        }
        return regions;
    }

    static void flipByte(Path file, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ 0x5a)).rewind();
            ch.write(b, offset);
        }
    }
}
