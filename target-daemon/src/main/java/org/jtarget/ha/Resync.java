package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.ha.link.ReplicationLink;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Copies the dirty regions of one store to the peer, oldest address first: runs of adjacent dirty
 * regions are read together (up to {@link #RUN_BYTES}) and sent as one write, each under the
 * store's overlap gate so that a new write to the same blocks goes before or after it, never in
 * between. A region's bit is cleared once the peer applied it; a write that arrives meanwhile is
 * replicated as it happens, so the copy never goes back in time.
 */
final class Resync {

    static final int RUN_BYTES = 1 << 20;

    private final ReplicatedBackstore store;
    private final ReplicationLink link;
    private final Consumer<String> progress;

    Resync(ReplicatedBackstore store, ReplicationLink link, Consumer<String> progress) {
        this.store = store;
        this.link = link;
        this.progress = progress;
    }

    /** Copies every dirty region; the bytes copied, or -1 when the link went down first. */
    long run() throws IOException, InterruptedException {
        DirtyRegionLog log = store.log();
        int bs = store.info().blockSize();
        long regionBlocks = log.regionSize() / bs;
        int runRegions = (int) Math.max(1, RUN_BYTES / log.regionSize());
        long total = log.dirtyBytes();
        long copied = 0;
        long start = System.nanoTime();
        ByteBuf buffer = Unpooled.directBuffer(Math.max(RUN_BYTES, log.regionSize()));
        try {
            for (long r = log.nextDirtyRegion(0); r >= 0; r = log.nextDirtyRegion(r)) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                int n = run(log, r, runRegions);
                long lba = r * regionBlocks;
                long blocks = Math.min((long) n * regionBlocks, store.info().blockCount() - lba);
                if (!copy(buffer, lba, (int) blocks)) {
                    return -1;
                }
                for (int i = 0; i < n; i++) {
                    log.clear(r + i);
                }
                copied += blocks * bs;
                report(total, copied, start);
                r += n;
            }
            log.flush();
            return copied;
        } finally {
            buffer.release();
        }
    }

    /** How many dirty regions follow one another from {@code r}, at most {@code max}. */
    private static int run(DirtyRegionLog log, long r, int max) {
        int n = 1;
        while (n < max && r + n < log.regionCount() && log.nextDirtyRegion(r + n) == r + n) {
            n++;
        }
        return n;
    }

    private boolean copy(ByteBuf buffer, long lba, int blocks) throws IOException {
        int ticket = store.hold(lba, blocks);
        try {
            buffer.clear();
            store.local().read(lba, blocks, buffer);
            return link.write(store.index(), lba, store.info().blockSize(), buffer, false);
        } finally {
            store.release(ticket);
        }
    }

    private void report(long total, long copied, long start) {
        double seconds = Math.max(1e-3, (System.nanoTime() - start) / 1e9);
        long percent = total == 0 ? 100 : Math.min(100, copied * 100 / total);
        progress.accept("syncing " + percent + "% (" + ((total - copied) >> 20) + " MiB left, "
                + (long) (copied / seconds / (1 << 20)) + " MiB/s)");
    }
}
