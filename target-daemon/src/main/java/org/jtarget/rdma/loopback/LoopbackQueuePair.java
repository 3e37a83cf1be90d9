package org.jtarget.rdma.loopback;

import io.netty.buffer.ByteBuf;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairAttributes;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.RemoteAccessHandler;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.SendQueueEntry;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;

import java.util.concurrent.TimeUnit;

/**
 * A loopback queue pair: as requester it executes each entry directly against the peer queue pair
 * (its responder methods do the checks), see {@link LoopbackDevice} for the ordering it gives.
 *
 * <p>RNR (IBA 9.7.5.2.8): a SEND that finds no receive stalls the send queue. With rnr_retry 0 it
 * fails at once with RNR_RETRY_EXC_ERR; with 7 it waits until the peer posts a receive; otherwise
 * it also waits, at most rnr_retry × min_rnr_timer.
 *
 * <p>Store endpoints: an RDMA WRITE (without immediate) or READ whose rkey names a handler-backed
 * region is handed to the region's {@link RemoteAccessHandler}: the WRITE's payload is gathered into
 * a handler buffer at once, the access runs on the handler's executor, and the entry completes when
 * the handler says so (deferred: FENCE and barriers wait for it, nothing else does). A WRITE with
 * immediate to such a region is refused (REM_ACCESS_ERR).
 */
final class LoopbackQueuePair extends QueuePair {

    private final LoopbackDevice device;
    private volatile LoopbackQueuePair peer;
    /** The SEND waiting for a receive at the peer; guarded by {@code this}. */
    private SendQueueEntry rnrEntry;
    private long rnrSeq;
    /** The queue pair whose SEND waits for a receive here. */
    private volatile LoopbackQueuePair rnrWaiter;

    LoopbackQueuePair(LoopbackDevice device, ProtectionDomain pd, QueuePairInitAttributes init, int qpNum) {
        super(pd, init, qpNum);
        this.device = device;
    }

    @Override
    protected void onModify(QueuePairState from, QueuePairAttributes attr) throws RdmaException {
        if (attr.state == QueuePairState.RTR) {
            QueuePair p = device.queuePair(attr.destQpNum);
            if (!(p instanceof LoopbackQueuePair lp)) {
                throw new RdmaException(Errno.EINVAL, "no loopback queue pair " + attr.destQpNum);
            }
            peer = lp;
        }
    }

    @Override
    protected void execute(SendQueueEntry e) {
        LoopbackQueuePair p = peer;
        if (p == null || !p.readyToReceive()) {
            completeSend(e.seq(), WorkCompletionStatus.RETRY_EXC_ERR, 0);
            return;
        }
        if ((e.opcode() == WorkRequestOpcode.RDMA_WRITE || e.opcode() == WorkRequestOpcode.RDMA_READ)
                && isHandlerBacked(p, e.rkey())) {
            startRemoteAccess(p, e);
            return;
        }
        switch (e.opcode()) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE, RDMA_WRITE_WITH_IMM -> transmit(p, e);
            case RDMA_READ -> {
                if (device.readResponses() == null) {
                    placeRead(p, e, e.seq());
                } else {
                    long seq = e.seq();
                    device.readResponses().execute(() -> placeRead(p, e, seq));
                }
            }
        }
    }

    private boolean readyToReceive() {
        QueuePairState s = state();
        return s == QueuePairState.RTR || s == QueuePairState.RTS;
    }

    private void transmit(LoopbackQueuePair p, SendQueueEntry e) {
        WorkCompletionStatus st = deliver(p, e);
        if (st == WorkCompletionStatus.RNR_RETRY_EXC_ERR && rnrRetry() != 0) {
            waitForReceive(p, e);
            return;
        }
        completeSend(e.seq(), st, (int) e.totalLength());
    }

    private static WorkCompletionStatus deliver(LoopbackQueuePair p, SendQueueEntry e) {
        int length = (int) e.totalLength();
        boolean solicited = (e.sendFlags() & SendFlags.SOLICITED) != 0;
        return switch (e.opcode()) {
            case RDMA_WRITE -> p.write(e, e.remoteAddress(), e.rkey(), length, false, 0);
            case RDMA_WRITE_WITH_IMM -> p.write(e, e.remoteAddress(), e.rkey(), length, true, e.immData());
            default -> p.receive(e, length, e.opcode(), e.immData(), e.invalidateRkey(), solicited);
        };
    }

    private WorkCompletionStatus write(SendQueueEntry e, long address, int rkey, int length, boolean imm, int immData) {
        return deliverWrite(e, address, rkey, length, imm, immData);
    }

    private WorkCompletionStatus receive(SendQueueEntry e, int length, WorkRequestOpcode op, int imm, int inv,
                                         boolean solicited) {
        return deliverReceive(e, length, op, imm, inv, solicited);
    }

    private void placeRead(LoopbackQueuePair p, SendQueueEntry e, long seq) {
        if (e.seq() != seq || state() != QueuePairState.RTS) {
            return; // flushed meanwhile
        }
        int length = (int) e.totalLength();
        MemoryRegion mr = p.remoteForRead(e.rkey(), e.remoteAddress(), length);
        if (mr == null) {
            completeSend(seq, WorkCompletionStatus.REM_ACCESS_ERR, 0);
            return;
        }
        try {
            e.scatterFrom(mr, mr.offsetOf(e.remoteAddress(), length), 0, length);
        } finally {
            mr.release();
        }
        completeSend(seq, WorkCompletionStatus.SUCCESS, length);
    }

    private MemoryRegion remoteForRead(int rkey, long address, int length) {
        return acquireRemote(rkey, address, length, AccessFlag.REMOTE_READ);
    }

    // ---- store endpoints (handler-backed regions) ------------------------------------------------

    private static boolean isHandlerBacked(LoopbackQueuePair p, int rkey) {
        MemoryRegion mr = p.device().lookupRegion(rkey, true);
        return mr != null && mr.remoteAccessHandler() != null;
    }

    private void startRemoteAccess(LoopbackQueuePair p, SendQueueEntry e) {
        boolean write = e.opcode() == WorkRequestOpcode.RDMA_WRITE;
        int length = (int) e.totalLength();
        long seq = e.seq();
        MemoryRegion mr = p.remoteForAccess(e.rkey(), e.remoteAddress(), length,
                write ? AccessFlag.REMOTE_WRITE : AccessFlag.REMOTE_READ);
        if (mr == null) {
            completeSend(seq, WorkCompletionStatus.REM_ACCESS_ERR, 0);
            return;
        }
        RemoteAccessHandler handler = mr.remoteAccessHandler();
        long offset = mr.offsetOf(e.remoteAddress(), length);
        deferCompletion(seq);
        if (write) {
            ByteBuf data = handler.allocate(length);
            e.gatherTo(data, length);
            handler.write(p, offset, data, (status, ignored) -> {
                mr.release();
                completeSend(seq, status, status == WorkCompletionStatus.SUCCESS ? length : 0);
            });
        } else {
            handler.read(p, offset, length, (status, data) -> placeRemoteRead(e, seq, mr, status, data, length));
        }
    }

    private void placeRemoteRead(SendQueueEntry e, long seq, MemoryRegion mr, WorkCompletionStatus status,
                                 ByteBuf data, int length) {
        mr.release();
        try {
            if (status == WorkCompletionStatus.SUCCESS && e.seq() == seq && state() == QueuePairState.RTS) {
                e.scatterFrom(data, length);
            }
        } finally {
            if (data != null) {
                data.release();
            }
        }
        completeSend(seq, status, status == WorkCompletionStatus.SUCCESS ? length : 0);
    }

    private MemoryRegion remoteForAccess(int rkey, long address, int length, AccessFlag needed) {
        return acquireRemoteAccess(rkey, address, length, needed);
    }

    // ---- RNR ------------------------------------------------------------------------------------

    private void waitForReceive(LoopbackQueuePair p, SendQueueEntry e) {
        stall();
        synchronized (this) {
            rnrEntry = e;
            rnrSeq = e.seq();
        }
        p.rnrWaiter = this;
        if (rnrRetry() != 7) {
            long micros = (long) rnrRetry() * Math.max(1, minRnrTimerMicros());
            long seq = e.seq();
            LoopbackDevice.timers().schedule(() -> rnrTimeout(seq), micros, TimeUnit.MICROSECONDS);
        }
        if (p.hasReceivePosted()) {
            retryReceiveNotReady();
        }
    }

    private boolean hasReceivePosted() {
        return hasReceive();
    }

    private void rnrTimeout(long seq) {
        synchronized (this) {
            if (rnrEntry == null || rnrSeq != seq) {
                return;
            }
            rnrEntry = null;
        }
        completeSend(seq, WorkCompletionStatus.RNR_RETRY_EXC_ERR, 0);
        unstall();
    }

    /** The peer posted a receive: retransmit the refused SEND. */
    private void retryReceiveNotReady() {
        SendQueueEntry e;
        synchronized (this) {
            e = rnrEntry;
            rnrEntry = null;
        }
        if (e == null) {
            return;
        }
        if (state() != QueuePairState.RTS) {
            unstall();
            return;
        }
        LoopbackQueuePair p = peer;
        WorkCompletionStatus st = deliver(p, e);
        if (st == WorkCompletionStatus.RNR_RETRY_EXC_ERR) {
            waitForReceive(p, e);
            return;
        }
        completeSend(e.seq(), st, (int) e.totalLength());
        unstall();
    }

    @Override
    protected void onReceivePosted() {
        LoopbackQueuePair w = rnrWaiter;
        if (w != null) {
            rnrWaiter = null;
            w.retryReceiveNotReady();
        }
    }

    @Override
    protected void onError() {
        synchronized (this) {
            rnrEntry = null;
        }
    }
}
