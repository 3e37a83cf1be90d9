package org.jtarget.rdma;

import java.lang.foreign.MemorySegment;

/**
 * Provider SPI: a posted work request as the queue pair keeps it (libibverbs providers call it a
 * WQE). Entries are pre-allocated in the queue's ring and filled by copy at post time; local keys
 * are resolved and their regions held then, so a region cannot be deregistered under a request.
 * As a gather list it is the {@link InboundPayload} of a loopback SEND or WRITE.
 */
public final class SendQueueEntry implements InboundPayload {
    long seq;
    long wrId;
    WorkRequestOpcode opcode;
    int sendFlags;
    boolean barrier;
    int numSge;
    final MemoryRegion[] regions;
    final long[] offsets;
    final int[] lengths;
    long totalLength;
    long remoteAddress;
    int rkey;
    int immData;
    int invalidateRkey;
    WorkCompletionStatus localStatus;
    boolean done;
    /** Completes asynchronously, in any order (an access to a handler-backed region). */
    boolean deferred;
    WorkCompletionStatus status;
    int byteLen;

    SendQueueEntry(int maxSge) {
        regions = new MemoryRegion[maxSge];
        offsets = new long[maxSge];
        lengths = new int[maxSge];
    }

    /** Fills this entry from a request; checks the local keys ({@code localWrite}: the data lands here). */
    void fill(long seq, WorkRequest wr, ProtectionDomain pd, boolean localWrite, int maxMsgSize) {
        this.seq = seq;
        wrId = wr.wrId;
        opcode = wr.opcode;
        sendFlags = wr.sendFlags;
        barrier = false;
        remoteAddress = wr.remoteAddress;
        rkey = wr.rkey;
        immData = wr.immData;
        invalidateRkey = wr.invalidateRkey;
        done = false;
        deferred = false;
        status = null;
        byteLen = 0;
        localStatus = WorkCompletionStatus.SUCCESS;
        fillScatterList(wr, pd, localWrite);
        if (totalLength > maxMsgSize && localStatus == WorkCompletionStatus.SUCCESS) {
            localStatus = WorkCompletionStatus.LOC_LEN_ERR;
        }
    }

    void fillBarrier(long seq, long wrId) {
        this.seq = seq;
        this.wrId = wrId;
        barrier = true;
        opcode = null;
        sendFlags = SendFlags.SIGNALED;
        numSge = 0;
        totalLength = 0;
        done = false;
        deferred = false;
        status = null;
        byteLen = 0;
        localStatus = WorkCompletionStatus.SUCCESS;
    }

    private void fillScatterList(WorkRequest wr, ProtectionDomain pd, boolean localWrite) {
        numSge = 0;
        totalLength = 0;
        for (int i = 0; i < wr.numSge; i++) {
            ScatterGatherElement sge = wr.sgList[i];
            MemoryRegion mr = pd.device().lookupRegion(sge.lkey(), false);
            long off = mr == null ? -1 : mr.offsetOf(sge.address(), sge.length());
            // ibv_post_send(3)/IBA 10.6.3.1: the lkey must name a region of the QP's PD, the SGE must lie
            // inside it, and memory that is written locally needs LOCAL_WRITE; else LOC_PROT_ERR.
            if (off < 0 || mr.protectionDomain() != pd || (localWrite && !mr.allows(AccessFlag.LOCAL_WRITE))
                    || sge.length() < 0 || !mr.acquire()) {
                localStatus = WorkCompletionStatus.LOC_PROT_ERR;
                continue;
            }
            regions[numSge] = mr;
            offsets[numSge] = off;
            lengths[numSge] = sge.length();
            totalLength += sge.length();
            numSge++;
        }
    }

    void releaseRegions() {
        for (int i = 0; i < numSge; i++) {
            regions[i].release();
            regions[i] = null;
        }
        numSge = 0;
    }

    /** The queue pair's sequence number of this entry (providers complete by it). */
    public long seq() {
        return seq;
    }

    public long wrId() {
        return wrId;
    }

    public WorkRequestOpcode opcode() {
        return opcode;
    }

    public int sendFlags() {
        return sendFlags;
    }

    public int numSge() {
        return numSge;
    }

    /** The region of element {@code i} (already checked and held). */
    public MemoryRegion region(int i) {
        return regions[i];
    }

    /** The offset of element {@code i} inside its region. */
    public long offset(int i) {
        return offsets[i];
    }

    public int length(int i) {
        return lengths[i];
    }

    public long totalLength() {
        return totalLength;
    }

    public long remoteAddress() {
        return remoteAddress;
    }

    public int rkey() {
        return rkey;
    }

    public int immData() {
        return immData;
    }

    public int invalidateRkey() {
        return invalidateRkey;
    }

    @Override
    public void copyTo(long payloadOffset, MemoryRegion dst, long dstOffset, int length) {
        long pos = 0;
        int remaining = length;
        for (int i = 0; i < numSge && remaining > 0; i++) {
            long end = pos + lengths[i];
            if (payloadOffset < end) {
                long within = payloadOffset - pos;
                int n = (int) Math.min(remaining, lengths[i] - within);
                MemorySegment.copy(regions[i].segment(), offsets[i] + within, dst.segment(), dstOffset, n);
                payloadOffset += n;
                dstOffset += n;
                remaining -= n;
            }
            pos = end;
        }
    }

    /**
     * Copies {@code length} bytes of this entry's gather list, from its start, to {@code dst} at its
     * writer index (an RDMA WRITE handed to a store endpoint). Borrows dst.
     */
    public void gatherTo(io.netty.buffer.ByteBuf dst, int length) {
        int remaining = length;
        for (int i = 0; i < numSge && remaining > 0; i++) {
            int n = Math.min(remaining, lengths[i]);
            int at = dst.writerIndex();
            dst.ensureWritable(n);
            MemorySegment.copy(regions[i].segment(), offsets[i], MemorySegment.ofBuffer(dst.nioBuffer(at, n)), 0, n);
            dst.writerIndex(at + n);
            remaining -= n;
        }
    }

    /**
     * Scatters {@code length} readable bytes of {@code src} into this entry's elements from its start
     * (an RDMA READ answered by a store endpoint). Borrows src.
     */
    public void scatterFrom(io.netty.buffer.ByteBuf src, int length) {
        int remaining = length;
        int from = src.readerIndex();
        for (int i = 0; i < numSge && remaining > 0; i++) {
            int n = Math.min(remaining, lengths[i]);
            MemorySegment.copy(MemorySegment.ofBuffer(src.nioBuffer(from, n)), 0, regions[i].segment(), offsets[i], n);
            from += n;
            remaining -= n;
        }
    }

    /** Scatters {@code length} bytes of {@code src} at {@code srcOffset} into this entry's elements from {@code entryOffset}. */
    public void scatterFrom(MemoryRegion src, long srcOffset, long entryOffset, int length) {
        long pos = 0;
        int remaining = length;
        for (int i = 0; i < numSge && remaining > 0; i++) {
            long end = pos + lengths[i];
            if (entryOffset < end) {
                long within = entryOffset - pos;
                int n = (int) Math.min(remaining, lengths[i] - within);
                MemorySegment.copy(src.segment(), srcOffset, regions[i].segment(), offsets[i] + within, n);
                entryOffset += n;
                srcOffset += n;
                remaining -= n;
            }
            pos = end;
        }
    }
}
