package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.ha.link.ReplicationLink;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Copies the dirty regions of one store to the peer, oldest address first: runs of adjacent dirty
 * regions are read together (up to {@link #RUN_BYTES}) and sent as one write, each under the
 * store's overlap gate so that a new write to the same blocks goes before or after it, never in
 * between. A region's bit is cleared once the peer applied it; a write that arrives meanwhile is
 * replicated as it happens, so the copy never goes back in time.
 *
 * <p>On a thin store, dirty runs the store holds nothing for (never written or unmapped: they
 * read as zeros) go as one UNMAP of up to {@link #HOLE_BYTES} that must leave zeros at the peer,
 * not as data: the first copy of a new pair of large thin LUs moves what was written, not the
 * LUs' size in zeros. Only when the peer's HELLO says its copy reads deallocated blocks as zeros.
 */
final class Resync {

    static final int RUN_BYTES = 1 << 20;
    static final long HOLE_BYTES = 1L << 30;

    private final ReplicatedBackstore store;
    private final ReplicationLink link;
    private final Consumer<PairNode.ResyncProgress> progress;
    private final long regionBlocks;
    private final int bs;
    /** Holes go as UNMAP: both copies of the store read deallocated blocks as zeros. */
    private final boolean holesAsUnmap;
    private long holeBytes;

    /**
     * @param peerUnmapsToZeros the peer's copy of the store reads deallocated blocks as zeros (its HELLO)
     */
    Resync(ReplicatedBackstore store, ReplicationLink link, boolean peerUnmapsToZeros,
           Consumer<PairNode.ResyncProgress> progress) {
        this.store = store;
        this.link = link;
        this.progress = progress;
        this.bs = store.info().blockSize();
        this.regionBlocks = store.log().regionSize() / bs;
        this.holesAsUnmap = peerUnmapsToZeros && store.unmapsToZeros();
    }

    /** Copies every dirty region; the bytes copied as data, or -1 when the link went down first. */
    long run() throws IOException, InterruptedException {
        DirtyRegionLog log = store.log();
        int runRegions = (int) Math.max(1, RUN_BYTES / log.regionSize());
        int holeRegions = (int) Math.max(1, HOLE_BYTES / log.regionSize());
        long total = log.dirtyBytes();
        long copied = 0;
        long start = System.nanoTime();
        ByteBuf buffer = Unpooled.directBuffer(Math.max(RUN_BYTES, log.regionSize()));
        try {
            for (long r = log.nextDirtyRegion(0); r >= 0; r = log.nextDirtyRegion(r)) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                int n = holesAsUnmap ? sendHole(r, log.dirtyRun(r, holeRegions)) : 0;
                if (n < 0) {
                    return -1;
                }
                long bytes = 0;
                if (n == 0) {
                    n = log.dirtyRun(r, runRegions);
                    bytes = blocks(r, n) * bs;
                    if (!copy(buffer, r * regionBlocks, (int) blocks(r, n))) {
                        return -1;
                    }
                }
                for (int i = 0; i < n; i++) {
                    log.clear(r + i);
                }
                copied += bytes;
                report(total, copied + holeBytes, start);
                r += n;
            }
            log.flush();
            return copied;
        } finally {
            buffer.release();
        }
    }

    /** The bytes of dirty runs sent as UNMAP (holes of a thin store) by {@link #run}. */
    long holeBytes() {
        return holeBytes;
    }

    /** Blocks of {@code n} regions from region {@code r} (the store's last region may be short). */
    private long blocks(long r, long n) {
        return Math.min(n * regionBlocks, store.info().blockCount() - r * regionBlocks);
    }

    /**
     * Sends the whole regions at the start of the dirty run ({@code n} regions from {@code r})
     * that the local store holds nothing for as an UNMAP; the regions sent (0: none is a hole), -1
     * when the link went down (or the peer refused, which drops it).
     */
    private int sendHole(long r, int n) throws IOException {
        long lba = r * regionBlocks;
        int ticket = store.hold(lba, blocks(r, n));
        try {
            Backstore.ProvisioningRun p = store.local().provisioningRun(lba, blocks(r, n));
            long holeBlocks = p.mapped() ? 0 : lba + p.blocks() == store.info().blockCount() ? blocks(r, n)
                    : p.blocks() / regionBlocks * regionBlocks;
            if (holeBlocks == 0) {
                return 0;
            }
            if (!link.unmapToZeros(store.index(), lba, holeBlocks)) {
                return -1;
            }
            holeBytes += holeBlocks * bs;
            return (int) ((holeBlocks + regionBlocks - 1) / regionBlocks);
        } finally {
            store.release(ticket);
        }
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

    private void report(long total, long done, long start) {
        progress.accept(new PairNode.ResyncProgress(store.name(), done, total, start));
    }
}
