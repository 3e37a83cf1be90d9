package org.jtarget.scsi.copy;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.copy.CopyParameterList.Segment;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.lun.LbaRangeLock;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LogicalUnitRegistry;
import org.jtarget.scsi.lun.WorkProgress;
import org.jtarget.scsi.sense.SenseReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The data movement of one accepted EXTENDED COPY: its segments, in order, in chunks of at most
 * {@link CopyLimits#CHUNK_BYTES}, each read from the source LU's store into a pooled buffer and
 * written to the destination LU's store, on the source LU's I/O executor (never an event loop).
 *
 * <p>Each chunk holds its LBA ranges in the LUs' {@link LbaRangeLock}s, shared like a READ on
 * the source and like a WRITE on the destination, so COMPARE AND WRITE / ORWRITE stay atomic
 * against the copy (SBC-4 5.3). Locks are requested without blocking: when one is queued, the
 * grant resubmits the job. To rule out deadlock a chunk on one LU takes one range covering
 * source and destination, and a chunk across LUs takes them in {@link LogicalUnitRegistry#rank}
 * order. Overlapping source and destination ranges on one LU are copied back to front when the
 * destination lies above the source, so the result is as if all source blocks were read first.
 *
 * <p>Ends by running the command's completion on its event loop (the handler detached it).
 */
final class CopyJob implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(CopyJob.class);
    private static final int NEXT = 0;
    private static final int LOCK_FIRST = 1;
    private static final int LOCK_SECOND = 2;
    private static final int MOVE = 3;

    private final CommandContext ctx;
    private final CopyParameterList list;
    private final LogicalUnitRegistry registry;
    private final CopyResults results;
    private final CopyResults.Entry entry;
    private final LbaRangeLock.Holder first = new LbaRangeLock.Holder(this::granted);
    private final LbaRangeLock.Holder second = new LbaRangeLock.Holder(this::granted);
    /** What {@code GET /api/v1/tasks} shows of the copy, on the LU the command was sent to. */
    private final WorkProgress progress;

    private int stage = NEXT;
    private int segmentIndex;
    private long doneInSegment;
    // the current chunk
    private LogicalUnit src;
    private LogicalUnit dst;
    private long srcLba;
    private long dstLba;
    private int chunkBlocks;
    private LogicalUnit lockA;
    private long lockALba;
    private long lockABlocks;
    private LogicalUnit lockB;
    private long lockBLba;
    private long lockBBlocks;

    CopyJob(CommandContext ctx, CopyParameterList list, LogicalUnitRegistry registry, CopyResults results,
            CopyResults.Entry entry) {
        this.ctx = ctx;
        this.list = list;
        this.registry = registry;
        this.results = results;
        this.entry = entry;
        this.progress = ctx.lu().beginWork("extended-copy", totalBytes(list));
    }

    private static long totalBytes(CopyParameterList list) {
        long bytes = 0;
        for (Segment s : list.segments) {
            bytes += s.blocks() * list.lu(s.sourceIndex()).blockSize();
        }
        return bytes;
    }

    /** Starts the copy on an I/O executor; returns at once. */
    void start() {
        submit();
    }

    private void submit() {
        Executor executor = list.lu(list.segments.get(Math.min(segmentIndex, list.segments.size() - 1))
                .sourceIndex()).ioExecutor();
        try {
            executor.execute(this);
        } catch (RejectedExecutionException e) {
            end(SenseReason.COPY_ABORTED_SEGMENT_FAILED); // the I/O queue is full: cannot continue
        }
    }

    /** A queued range request was granted (on the releasing thread): continue on the executor. */
    private void granted() {
        submit();
    }

    @Override
    public void run() {
        try {
            advance();
        } catch (IOException e) {
            log.debug("EXTENDED COPY: store I/O failed", e);
            end(SenseReason.COPY_ABORTED_SEGMENT_FAILED); // SPC-4 5.16.7.4: a copy target failed
        } catch (RuntimeException e) {
            log.error("bug: EXTENDED COPY failed", e);
            end(SenseReason.INTERNAL_TARGET_FAILURE);
        }
    }

    private void advance() throws IOException {
        while (true) {
            switch (stage) {
                case NEXT -> {
                    if (ctx.cmd().isAborted()) {
                        end(null);
                        return;
                    }
                    if (!nextChunk()) {
                        end(null);
                        return;
                    }
                    stage = LOCK_FIRST;
                }
                case LOCK_FIRST -> {
                    stage = LOCK_SECOND;
                    if (!lockA.rangeLock().acquire(first, lockALba, lockABlocks, false)) {
                        return; // granted() resubmits
                    }
                }
                case LOCK_SECOND -> {
                    stage = MOVE;
                    if (lockB != null && !lockB.rangeLock().acquire(second, lockBLba, lockBBlocks, false)) {
                        return;
                    }
                }
                default -> {
                    move();
                    stage = NEXT;
                }
            }
        }
    }

    /** Picks the next chunk; false when every segment is done. */
    private boolean nextChunk() {
        List<Segment> segments = list.segments;
        while (segmentIndex < segments.size() && doneInSegment == segments.get(segmentIndex).blocks()) {
            results.progress(entry, 1, 0);
            segmentIndex++;
            doneInSegment = 0;
        }
        if (segmentIndex == segments.size()) {
            return false;
        }
        Segment s = segments.get(segmentIndex);
        src = list.lu(s.sourceIndex());
        dst = list.lu(s.destinationIndex());
        chunkBlocks = (int) Math.min(s.blocks() - doneInSegment, CopyLimits.CHUNK_BYTES / src.blockSize());
        boolean backwards = src == dst && s.destinationLba() > s.sourceLba()
                && s.destinationLba() < s.sourceLba() + s.blocks();
        long offset = backwards ? s.blocks() - doneInSegment - chunkBlocks : doneInSegment;
        srcLba = s.sourceLba() + offset;
        dstLba = s.destinationLba() + offset;
        chooseLocks();
        return true;
    }

    private void chooseLocks() {
        if (src == dst) {
            lockA = src;
            lockALba = Math.min(srcLba, dstLba);
            lockABlocks = Math.max(srcLba, dstLba) + chunkBlocks - lockALba;
            lockB = null;
            return;
        }
        boolean srcFirst = registry.rank(src) <= registry.rank(dst);
        lockA = srcFirst ? src : dst;
        lockALba = srcFirst ? srcLba : dstLba;
        lockB = srcFirst ? dst : src;
        lockBLba = srcFirst ? dstLba : srcLba;
        lockABlocks = chunkBlocks;
        lockBBlocks = chunkBlocks;
    }

    /** Reads the chunk, writes it, releases the ranges. */
    private void move() throws IOException {
        int bytes = chunkBlocks * src.blockSize();
        ByteBuf buf = ctx.cmd().alloc().directBuffer(bytes);
        try {
            src.store().read(srcLba, chunkBlocks, buf);
            // SBC-4 6.5.5: with WCE = 0 every write must reach the medium before status
            dst.store().write(dstLba, buf, !dst.modes().writeCacheEnabled());
        } finally {
            buf.release();
            releaseLocks();
        }
        doneInSegment += chunkBlocks;
        progress.advance(bytes);
        results.progress(entry, 0, bytes);
    }

    private void releaseLocks() {
        if (lockA != null) {
            lockA.rangeLock().release(first);
        }
        if (lockB != null) {
            lockB.rangeLock().release(second);
        }
    }

    /** Ends the command: null for success (or abort), else the reason for CHECK CONDITION. */
    private void end(SenseReason reason) {
        releaseLocks();
        ctx.lu().endWork(progress);
        boolean good = reason == null && !ctx.cmd().isAborted();
        results.finish(entry, good);
        if (reason != null) {
            ctx.fail(reason);
        }
        ctx.cmd().eventLoop().execute(ctx.completion());
    }
}
