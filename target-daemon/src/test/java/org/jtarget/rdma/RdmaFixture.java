package org.jtarget.rdma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/** Test helper: a device's PD, CQs and a connected pair of queue pairs, with shared-arena memory. */
public final class RdmaFixture implements AutoCloseable {

    public static final Set<AccessFlag> ALL = EnumSet.allOf(AccessFlag.class);

    public final RdmaDevice device;
    public final Arena arena = Arena.ofShared();
    public final ProtectionDomain pd;
    public final CompletionQueue cqA;
    public final CompletionQueue cqB;
    public final QueuePair a;
    public final QueuePair b;
    private final WorkCompletion[] wcs = new WorkCompletion[64];

    public RdmaFixture(RdmaDevice device, int depth, int maxSge) throws RdmaException {
        this.device = device;
        this.pd = device.allocateProtectionDomain();
        this.cqA = device.createCompletionQueue(4096, null);
        this.cqB = device.createCompletionQueue(4096, null);
        this.a = device.createQueuePair(pd, new QueuePairInitAttributes(cqA, cqA, depth, depth, maxSge, maxSge));
        this.b = device.createQueuePair(pd, new QueuePairInitAttributes(cqB, cqB, depth, depth, maxSge, maxSge));
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /** Brings both queue pairs to RTS, each bound to the other, with every remote access allowed. */
    public RdmaFixture connect() throws RdmaException {
        connect(a, b.qpNum(), ALL);
        connect(b, a.qpNum(), ALL);
        return this;
    }

    public static void connect(QueuePair qp, int dest, Set<AccessFlag> access) throws RdmaException {
        qp.modify(QueuePairAttributes.to(QueuePairState.INIT).access(access));
        qp.modify(QueuePairAttributes.to(QueuePairState.RTR).destQpNum(dest));
        qp.modify(QueuePairAttributes.to(QueuePairState.RTS));
    }

    public MemorySegment allocate(long size) {
        return arena.allocate(size, 4096);
    }

    public MemoryRegion register(long size, Set<AccessFlag> access) throws RdmaException {
        return pd.registerMemoryRegion(allocate(size), access);
    }

    /** Polls one completion from {@code cq}, failing if there is none. */
    public WorkCompletion pollOne(CompletionQueue cq) {
        WorkCompletion wc = new WorkCompletion();
        int n = cq.poll(new WorkCompletion[] {wc}, 1);
        if (n != 1) {
            throw new AssertionError("expected a completion, poll returned " + n);
        }
        return wc;
    }

    /** Polls everything waiting. */
    public java.util.List<WorkCompletion> pollAll(CompletionQueue cq) {
        java.util.List<WorkCompletion> out = new java.util.ArrayList<>();
        int n;
        while ((n = cq.poll(wcs, wcs.length)) > 0) {
            for (int i = 0; i < n; i++) {
                WorkCompletion c = new WorkCompletion();
                c.copyFrom(wcs[i]);
                out.add(c);
            }
        }
        return out;
    }

    public static WorkRequest send(long wrId, MemoryRegion mr, long offset, int length) {
        WorkRequest wr = new WorkRequest(4).reset();
        wr.wrId = wrId;
        wr.addSge(mr.address() + offset, length, mr.lkey());
        return wr;
    }

    public static WorkRequest rdma(WorkRequestOpcode op, long wrId, MemoryRegion local, long localOffset, int length,
                                   long remoteAddress, int rkey) {
        WorkRequest wr = send(wrId, local, localOffset, length);
        wr.opcode = op;
        wr.remoteAddress = remoteAddress;
        wr.rkey = rkey;
        return wr;
    }

    public static WorkRequest recv(long wrId, MemoryRegion mr, long offset, int length) {
        WorkRequest wr = new WorkRequest(4).reset();
        wr.wrId = wrId;
        wr.addSge(mr.address() + offset, length, mr.lkey());
        return wr;
    }

    public static void fill(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (seed + i * 31));
        }
    }

    @Override
    public void close() {
        device.close();
        arena.close();
    }
}
