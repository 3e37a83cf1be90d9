package org.jtarget.rdma;

/** A posted receive, pre-allocated in the receive ring; regions are checked and held at post time. */
final class ReceiveQueueEntry {
    long wrId;
    int numSge;
    final MemoryRegion[] regions;
    final long[] offsets;
    final int[] lengths;
    long totalLength;
    WorkCompletionStatus localStatus;

    ReceiveQueueEntry(int maxSge) {
        regions = new MemoryRegion[maxSge];
        offsets = new long[maxSge];
        lengths = new int[maxSge];
    }

    void fill(WorkRequest wr, ProtectionDomain pd) {
        wrId = wr.wrId;
        numSge = 0;
        totalLength = 0;
        localStatus = WorkCompletionStatus.SUCCESS;
        for (int i = 0; i < wr.numSge; i++) {
            ScatterGatherElement sge = wr.sgList[i];
            MemoryRegion mr = pd.device().lookupRegion(sge.lkey(), false);
            long off = mr == null ? -1 : mr.offsetOf(sge.address(), sge.length());
            // A receive buffer is written locally: it needs LOCAL_WRITE (ibv_reg_mr(3)).
            if (off < 0 || mr.protectionDomain() != pd || !mr.allows(AccessFlag.LOCAL_WRITE) || !mr.acquire()) {
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

    /** Scatters {@code length} payload bytes into the elements in order. */
    void scatter(InboundPayload payload, int length) {
        long pos = 0;
        for (int i = 0; i < numSge && pos < length; i++) {
            int n = (int) Math.min(lengths[i], length - pos);
            payload.copyTo(pos, regions[i], offsets[i], n);
            pos += n;
        }
    }

    void releaseRegions() {
        for (int i = 0; i < numSge; i++) {
            regions[i].release();
            regions[i] = null;
        }
        numSge = 0;
    }
}
