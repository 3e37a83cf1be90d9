package org.jtarget.ha;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.ha.DirtyRegionLogTest.EXTENT;
import static org.jtarget.ha.DirtyRegionLogTest.EXTENT_REGIONS;
import static org.jtarget.ha.DirtyRegionLogTest.REGION;
import static org.jtarget.ha.DirtyRegionLogTest.dirtyRegions;
import static org.jtarget.ha.DirtyRegionLogTest.open;

/**
 * A crash is simulated by copying the log's file while the log is open, without close: the copy
 * holds what was written to the file (what a crash after the last force keeps), not what is only
 * in memory.
 */
class DirtyRegionLogCrashTest {

    @TempDir
    Path dir;

    /** The file of an open log, as a crash would leave it, copied into {@code target}. */
    static void copyTo(DirtyRegionLog log, Path target) throws IOException {
        Files.createDirectories(target);
        Files.copy(log.path(), target.resolve(log.path().getFileName()));
    }

    @Test
    void aCrashDirtiesEveryActiveExtentAndKeepsFlushedBits() throws IOException {
        Path crashed = dir.resolve("crashed");
        try (DirtyRegionLog log = open(dir, 4)) {
            log.markDirty(10 * EXTENT + 5L * REGION, REGION);
            log.flush();
            log.beginWrite(0, REGION);
            log.endWrite(0, REGION, true); // ended, but extent 0 is still active
            log.beginWrite(3 * EXTENT + REGION, 2L * REGION); // in flight at the crash
            copyTo(log, crashed);
        }
        try (DirtyRegionLog log = open(crashed, 4)) {
            assertThat(log.extentsDirtiedAtOpen()).isEqualTo(2);
            List<Long> expected = new ArrayList<>(regionsOfExtent(0));
            expected.addAll(regionsOfExtent(3));
            expected.add(10L * EXTENT_REGIONS + 5);
            assertThat(dirtyRegions(log)).containsExactlyElementsOf(expected);
            copyTo(log, dir.resolve("crashed-again")); // a crash right after the recovery
        }
        try (DirtyRegionLog log = open(dir.resolve("crashed-again"), 4)) {
            assertThat(log.extentsDirtiedAtOpen()).isZero(); // the recovery made the bits stable
            assertThat(log.dirtyBytes()).isEqualTo(2 * EXTENT + REGION);
        }
    }

    @Test
    void bitsOfAnInactiveExtentAreStableOnlyAfterAFlush() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            log.markDirty(7 * EXTENT, REGION);
            copyTo(log, dir.resolve("before"));
            log.flush();
            copyTo(log, dir.resolve("after"));
        }
        try (DirtyRegionLog log = open(dir.resolve("before"), 4)) {
            assertThat(log.isClean()).isTrue();
        }
        try (DirtyRegionLog log = open(dir.resolve("after"), 4)) {
            assertThat(dirtyRegions(log)).containsExactly(7L * EXTENT_REGIONS);
        }
    }

    @Test
    void evictionMakesTheBitsOfTheEvictedExtentStable() throws IOException {
        try (DirtyRegionLog log = open(dir, 2)) {
            log.beginWrite(REGION, REGION);
            log.endWrite(REGION, REGION, false); // region 1 dirty in memory only
            log.beginWrite(EXTENT, REGION);
            log.endWrite(EXTENT, REGION, true);
            log.beginWrite(2 * EXTENT, REGION); // evicts extent 0, the least recently used
            copyTo(log, dir.resolve("crashed"));
        }
        try (DirtyRegionLog log = open(dir.resolve("crashed"), 2)) {
            List<Long> expected = new ArrayList<>(List.of(1L)); // extent 0: its bit, not all of it
            expected.addAll(regionsOfExtent(1));
            expected.addAll(regionsOfExtent(2));
            assertThat(dirtyRegions(log)).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void theLeastRecentlyUsedIdleExtentIsEvicted() throws IOException {
        try (DirtyRegionLog log = open(dir, 3)) {
            for (int extent : new int[] {0, 1, 2, 0}) {
                log.beginWrite(extent * EXTENT, REGION);
                log.endWrite(extent * EXTENT, REGION, true);
            }
            log.beginWrite(5 * EXTENT, REGION); // extent 1 goes: 0 was used again since
            log.beginWrite(1 * EXTENT, REGION); // extent 2 goes: 0 was used after it
            log.beginWrite(6 * EXTENT, REGION); // extent 0 goes: 5 and 1 are busy
            copyTo(log, dir.resolve("crashed"));
        }
        try (DirtyRegionLog log = open(dir.resolve("crashed"), 3)) {
            List<Long> expected = new ArrayList<>(regionsOfExtent(1));
            expected.addAll(regionsOfExtent(5));
            expected.addAll(regionsOfExtent(6));
            assertThat(dirtyRegions(log)).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void aCloseWithWritesInProgressKeepsTheirExtentsActive() throws IOException {
        DirtyRegionLog log = open(dir, 4);
        log.beginWrite(4 * EXTENT, REGION);
        log.beginWrite(8 * EXTENT, REGION);
        log.endWrite(8 * EXTENT, REGION, true);
        log.close();
        try (DirtyRegionLog reopened = open(dir, 4)) {
            assertThat(reopened.extentsDirtiedAtOpen()).isEqualTo(1);
            assertThat(dirtyRegions(reopened)).containsExactlyElementsOf(regionsOfExtent(4));
        }
    }

    private static List<Long> regionsOfExtent(int extent) {
        long first = (long) extent * EXTENT_REGIONS;
        return LongStream.range(first, first + EXTENT_REGIONS).boxed().toList();
    }
}
