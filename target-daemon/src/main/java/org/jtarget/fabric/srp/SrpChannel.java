package org.jtarget.fabric.srp;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import org.jtarget.buffer.ByteBufCopy;
import org.jtarget.fabric.rdma.BufferSlots;
import org.jtarget.fabric.rdma.CompletionPoller;
import org.jtarget.fabric.rdma.RdmaTransfers;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.fabric.srp.iu.SrpLogout;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.TargetCore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Consumer;

/**
 * One SRP RDMA channel (SRP r16a 5.3) over one reliable-connected queue pair: it receives the
 * initiator's IUs in SENDs (SRP_CMD, SRP_TSK_MGMT, SRP_I_LOGOUT, answers to the target's requests),
 * moves each command's data by RDMA READ from and RDMA WRITE to the memory its descriptors name,
 * and SENDs SRP_RSP after the data is placed (one queue pair executes in order: a WRITE is placed
 * before the SEND behind it arrives). The SCSI side is {@link SrpCommands}, the channel's
 * {@link org.jtarget.scsi.spi.FabricOps}.
 *
 * <p>Memory: every buffer the queue pair touches lies in the registered arena
 * ({@link RegisteredMemory}): receive ring, send buffers, data-out read into arena buffers that go
 * to the store as they are, data-in written from the store's buffer when it lies in the arena
 * (else from a registered copy).
 *
 * <p>Threading: everything runs on {@link #executor()}, the channel's event loop (the provider's
 * socket loop for iwarp); the completion queue's events only schedule a poll there.
 */
public final class SrpChannel {

    private static final Logger LOG = LoggerFactory.getLogger(SrpChannel.class);

    /** Work request ids: the kind in the top bits, the slot in the low 32. */
    private static final long RECEIVE = 1L << 60;
    private static final long SEND = 2L << 60;
    private static final long DATA = 3L << 60;
    /** An RDMA READ of an indirect descriptor table that was only partly in its SRP_CMD. */
    private static final long TABLE = 4L << 60;
    private static final long KIND_MASK = 0xfL << 60;

    private final QueuePair qp;
    private final CompletionQueue cq;
    private final CmId id;
    private final EventExecutor loop;
    private final RegisteredMemory memory;
    private final SrpLimits limits;
    private final int itIuLength;
    private final Consumer<SrpChannel> onEnd;
    private final SrpCommands commands;

    private final CompletionPoller poller;
    private final BufferSlots receiveRing;
    private final BufferSlots sendBuffers;
    private final RdmaTransfers<SrpTask> transfers;
    private final WorkRequest wr = new WorkRequest(1);
    private final RemoteBuffers.Cursor writeCursor = new RemoteBuffers.Cursor();

    private boolean active;
    private boolean closing;
    private boolean gone;
    private boolean closeWhenSent;

    /**
     * @param itIuLength the initiator-to-target IU length agreed at login: the receive buffers' size
     * @param immediateDataOffset where immediate data starts in an SRP_CMD, or -1 when not agreed
     * @param onEnd      told once, on the loop, when the channel is gone (after the core let go of its commands)
     * @param portalCounters what the channels of the portal it logged in through carried
     */
    public SrpChannel(QueuePair qp, CompletionQueue cq, CompletionPoller poller, CmId id, EventExecutor loop,
                      RegisteredMemory memory,
                      SrpLimits limits, int itIuLength, int immediateDataOffset, ITNexus nexus, TargetCore core,
                      Consumer<SrpChannel> onEnd, TransferCounters portalCounters) {
        this.qp = qp;
        this.cq = cq;
        this.id = id;
        this.loop = loop;
        this.memory = memory;
        this.limits = limits;
        this.itIuLength = itIuLength;
        this.onEnd = onEnd;
        this.poller = poller;
        this.receiveRing = new BufferSlots(limits.receiveDepth());
        this.sendBuffers = new BufferSlots(limits.sendDepth());
        this.transfers = new RdmaTransfers<>(limits.dataDepth());
        this.commands = new SrpCommands(this, limits, immediateDataOffset, nexus, core, portalCounters);
    }

    /**
     * Carves the ring and send buffers from registered memory and posts every receive, so that the
     * initiator's first SEND finds one (call before accepting the connection).
     *
     * @return null, or why the channel cannot be served
     */
    public String prepare() {
        String shortage = receiveRing.carve(memory, itIuLength, "receive ring");
        if (shortage == null) {
            shortage = sendBuffers.carve(memory, SrpLimits.MAX_TI_IU_LENGTH, "send buffers");
        }
        if (shortage != null) {
            return shortage;
        }
        for (int i = 0; i < receiveRing.count(); i++) {
            if (memory.postReceive(qp, wr, RECEIVE | i, receiveRing.get(i)) != Errno.OK) {
                return "cannot post receive " + i;
            }
        }
        poller.attach(cq, this::completed, () -> gone, () -> fail("completion queue overflow"));
        return null;
    }

    /** The connection is accepted: IUs are served from now on. On the loop. */
    public void start() {
        active = true;
    }

    /** The channel's event loop. */
    public EventExecutor executor() {
        return loop;
    }

    /**
     * Where SCSI data buffers come from (what a memory store reads data-in into): the registered
     * arena, so that data-in is RDMA WRITTEN from the store's buffer without a copy.
     */
    io.netty.buffer.ByteBufAllocator dataAllocator() {
        return memory.allocator();
    }

    public CmId cmId() {
        return id;
    }

    /** The SCSI side of the channel. */
    SrpCommands commands() {
        return commands;
    }

    boolean isOpen() {
        return active && !closing && !gone;
    }

    /** Disconnects (any thread); DISCONNECTED follows on both sides and then {@link #disconnected}. */
    public void close() {
        if (!loop.inEventLoop()) {
            loop.execute(this::close);
            return;
        }
        if (!closing) {
            closing = true;
            id.disconnect();
        }
    }

    /**
     * Ends the channel from the target's side (SRP r16a 6.13): an SRP_T_LOGOUT with {@code reason},
     * then the disconnect once it is sent. Any thread.
     */
    public void logout(int reason) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> logout(reason));
            return;
        }
        if (closing || gone) {
            return;
        }
        int slot = takeSend();
        if (slot < 0) {
            close();
            return;
        }
        new SrpLogout.TargetLogout(0, reason, 0).encode(sendBuffer(slot));
        postSend(slot, false, "SRP_T_LOGOUT");
        closeWhenSent = true;
        closeIfSent();
    }

    /** The connection is gone (DISCONNECTED, or the accept failed): commands aborted, memory freed. On the loop. */
    public void disconnected() {
        if (gone) {
            return;
        }
        gone = true;
        active = false;
        try {
            qp.destroy(); // no completion follows: what was posted is dropped with it
            commands.channelGone();
        } finally {
            releaseAll();
            onEnd.accept(this);
        }
    }

    // ------------------------------------------------------------------ sending

    /** Takes a free send buffer (cleared): its slot, or -1 when every one is in flight. */
    int takeSend() {
        return sendBuffers.take();
    }

    /** The send buffer of a slot {@link #takeSend} gave: the IU is written at its writer index. */
    ByteBuf sendBuffer(int slot) {
        return sendBuffers.get(slot);
    }

    /** Whether a send buffer is free. */
    boolean canSend() {
        return sendBuffers.freeCount() > 0 && !closing && !gone;
    }

    /**
     * SENDs the bytes written into send buffer {@code slot} ({@link #takeSend}); with
     * {@code fence} it waits for every earlier RDMA READ of the queue pair (a task management
     * response must not overtake the READs of the commands it ended: the initiator unregisters their
     * memory when it has the response). Returns whether it went.
     */
    boolean postSend(int slot, boolean fence, String what) {
        ByteBuf b = sendBuffers.get(slot);
        wr.reset();
        wr.wrId = SEND | slot;
        wr.addSge(memory.address(b, 0), b.writerIndex(), memory.lkey());
        if (fence) {
            wr.sendFlags |= SendFlags.FENCE;
        }
        int rc = qp.postSend(wr);
        if (rc == Errno.OK) {
            return true;
        }
        sendBuffers.give(slot);
        fail(what + " refused by the queue pair (errno " + rc + ")");
        return false;
    }

    /**
     * RDMA WRITEs of {@code length} bytes of {@code data} (borrowed) from {@code index} to the
     * initiator's buffers, from their start. Returns false if the channel failed.
     */
    boolean writeDataIn(ByteBuf data, int index, int length, RemoteBuffers to) {
        RemoteBuffers.Cursor at = writeCursor;
        at.reset();
        for (int off = 0; off < length; ) {
            int n = (int) Math.min(Math.min(limits.maxRdmaChunk(), length - off), at.leftInDescriptor(to));
            if (n <= 0) {
                fail("data-in beyond the initiator's descriptors");
                return false;
            }
            ByteBuf from;
            int fromIndex = index + off;
            if (memory.contains(data, fromIndex, n)) {
                from = data.retain(); // the store's arena buffer goes out as it is
            } else {
                from = memory.chunk(n); // a store buffer outside the registered arena: one copy
                if (from == null) {
                    fail("no registered memory for " + Math.min(n, RegisteredMemory.MIN_CHUNK) + " bytes of data-in");
                    return false;
                }
                n = from.capacity();
                ByteBufCopy.append(data, fromIndex, from, n);
                fromIndex = from.readerIndex();
            }
            if (!postData(WorkRequestOpcode.RDMA_WRITE, from, fromIndex, n, at.address(to), at.key(to), null)) {
                return false;
            }
            at.advance(to, n);
            off += n;
        }
        return true;
    }

    /**
     * RDMA READs of the task's next data-out, each into a registered buffer that goes to the store
     * as it is; at most {@link SrpLimits#readsPerTask()} in flight per task. Completions come back
     * through {@link SrpCommands#dataOutFetched}.
     */
    void readDataOut(SrpTask task) {
        while (!gone && !closing && task.outstanding < limits.readsPerTask() && task.requested < task.wanted) {
            RemoteBuffers.Cursor at = task.readCursor;
            int n = (int) Math.min(Math.min(limits.maxRdmaChunk(), task.wanted - task.requested),
                    at.leftInDescriptor(task.dataOutBuffers));
            if (n <= 0) {
                fail("data-out beyond the initiator's descriptors");
                return;
            }
            ByteBuf into = memory.chunk(n);
            if (into == null) {
                fail("no registered memory for " + Math.min(n, RegisteredMemory.MIN_CHUNK) + " bytes of data-out");
                return;
            }
            n = into.capacity();
            if (!postData(WorkRequestOpcode.RDMA_READ, into, into.writerIndex(), n, at.address(task.dataOutBuffers),
                    at.key(task.dataOutBuffers), task)) {
                return;
            }
            at.advance(task.dataOutBuffers, n);
            task.requested += n;
            task.outstanding++;
        }
    }

    /**
     * RDMA READ of the task's whole indirect descriptor table ({@code length} bytes at
     * {@code address} of {@code key}, SRP r16a: the entries beyond those in the SRP_CMD are only
     * there); {@link SrpCommands#tableFetched} follows.
     */
    void readTable(SrpTask task, long address, int key, int length) {
        ByteBuf into = memory.buffer(length);
        if (into == null) {
            fail("no registered memory for a descriptor table of " + length + " bytes");
            return;
        }
        postData(WorkRequestOpcode.RDMA_READ, into, into.writerIndex(), length, address, key, task, TABLE);
    }

    private boolean postData(WorkRequestOpcode opcode, ByteBuf buf, int index, int length, long remoteAddress,
                             int rkey, SrpTask task) {
        return postData(opcode, buf, index, length, remoteAddress, rkey, task, DATA);
    }

    private boolean postData(WorkRequestOpcode opcode, ByteBuf buf, int index, int length, long remoteAddress,
                             int rkey, SrpTask task, long kind) {
        String refused = transfers.post(memory, qp, wr, kind, opcode, buf, index, length, remoteAddress, rkey, task);
        if (refused != null) {
            fail(refused);
            return false;
        }
        return true;
    }

    // ------------------------------------------------------------------ completions

    private void completed(WorkCompletion wc) {
        int slot = (int) wc.wrId;
        long kind = wc.wrId & KIND_MASK;
        boolean ok = wc.status == WorkCompletionStatus.SUCCESS;
        if (kind == RECEIVE) {
            if (!ok) {
                failed(wc, "receive");
                return;
            }
            received(slot, wc.byteLen);
        } else if (kind == SEND) {
            sendBuffers.give(slot);
            if (!ok) {
                failed(wc, "SEND");
                return;
            }
            commands.sendBufferFreed();
            closeIfSent();
        } else if (kind == DATA || kind == TABLE) {
            dataCompleted(slot, wc, kind == TABLE);
        }
    }

    private void dataCompleted(int slot, WorkCompletion wc, boolean table) {
        SrpTask task = transfers.task(slot);
        int length = transfers.length(slot);
        ByteBuf buf = transfers.free(slot);
        if (wc.status != WorkCompletionStatus.SUCCESS) {
            buf.release();
            failed(wc, wc.opcode == null ? "RDMA transfer" : wc.opcode.toString());
            return;
        }
        if (task == null) {
            buf.release(); // a WRITE of data-in: the data is placed
            return;
        }
        buf.writerIndex(buf.readerIndex() + length);
        if (table) {
            commands.tableFetched(task, buf);
            return;
        }
        task.outstanding--;
        commands.dataOutFetched(task, buf);
    }

    private void received(int slot, int length) {
        ByteBuf ring = receiveRing.get(slot);
        ring.setIndex(0, length);
        if (active && !closing) {
            commands.received(ring, length);
        }
        if (!gone && memory.postReceive(qp, wr, RECEIVE | slot, ring) != Errno.OK) {
            fail("cannot post a receive again");
        }
    }

    private void failed(WorkCompletion wc, String what) {
        if (wc.status == WorkCompletionStatus.WR_FLUSH_ERR) {
            close(); // the queue pair is in ERROR for a reason reported already
            return;
        }
        fail(what + " completed " + wc.status);
    }

    /** Ends this channel only, with one log line. */
    void fail(String why) {
        if (closing) {
            return;
        }
        LOG.warn("SRP channel {}: {}; closing it", id.remoteAddress(), why);
        close();
    }

    private void closeIfSent() {
        if (closeWhenSent && sendBuffers.allFree()) {
            closeWhenSent = false;
            close();
        }
    }

    private void releaseAll() {
        receiveRing.releaseAll();
        sendBuffers.releaseAll();
        transfers.releaseAll();
    }
}
