package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import org.jtarget.fabric.rdma.BufferSlots;
import org.jtarget.fabric.rdma.CompletionPoller;
import org.jtarget.fabric.rdma.RdmaTransfers;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.buffer.ByteBufCopy;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.PduParser;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.jtarget.fabric.iscsi.spi.IscsiEngine;
import org.jtarget.fabric.iscsi.spi.IscsiTransport;
import org.jtarget.fabric.iscsi.spi.TaskTransfer;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.scsi.spi.ScsiCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * iSCSI over RDMA (iSER, RFC 7145): the {@link IscsiTransport} of one iSCSI connection over one
 * reliable-connected queue pair. Every PDU travels in a SEND behind a 28-byte {@link IserHeader};
 * a command's data never does: Data-In is RDMA WRITTEN into the initiator's buffer named by the
 * read STag of the command's iSER header and the SCSI Response SENT after it (one queue pair
 * executes in order, so the WRITE is placed before the response arrives, RFC 7145);
 * solicited Data-Out is RDMA READ from the buffer of its write STag, with no R2T on the wire.
 *
 * <p>Memory: every buffer the queue pair touches lies in one registered region, the pinned
 * arena of the daemon's buffer pool ({@link RegisteredMemory}): the receive ring and the send
 * buffers are carved from it once per connection, Data-Out is read into arena buffers that go
 * to the store as they are, and Data-In is written from the store's buffer when it lies in the
 * arena (else it is first copied into one).
 *
 * <p>Threading: everything runs on {@link #executor()}, the connection's event loop. The
 * completion queue's events only schedule a poll there. The engine calls from its session's
 * loop, which for the session's first connection is this same loop; calls from another loop
 * are handed over.
 */
public final class IscsiRdmaTransport implements IscsiTransport {

    private static final Logger LOG = LoggerFactory.getLogger(IscsiRdmaTransport.class);

    /** Work request ids: the kind in the top bits, the slot in the low 32. */
    private static final long RECEIVE = 1L << 60;
    private static final long SEND = 2L << 60;
    private static final long DATA = 3L << 60;
    private static final long KIND_MASK = 0xfL << 60;

    private final IscsiEngine engine;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final CmId id;
    private final EventExecutor loop;
    private final ByteBufAllocator alloc;
    private final RegisteredMemory memory;
    private final IserLimits limits;
    private final SocketAddress localAddress;
    private final Duration nopInterval;

    private final BufferSlots receiveRing;
    private final BufferSlots sendBuffers;
    private final ArrayDeque<IscsiPdu> waitingSends = new ArrayDeque<>();
    private final RdmaTransfers<TaskTransfer> transfers;
    private final RemoteBufferTable remoteBuffers;
    private final IserHeader header = new IserHeader();
    private final PduParser parser = new PduParser(true);
    private final WorkRequest wr;
    private final CompletionPoller poller;
    /** Receives completed while reading is off: their ring slots and lengths, handled when it is on again. */
    private final int[] heldReceives;
    private final int[] heldLengths;
    private int heldHead;
    private int heldCount;

    private boolean active;
    private boolean closing;
    private boolean gone;
    private boolean reading = true;
    private boolean writable = true;
    private boolean closeWhenSent;
    /** The initiator takes SEND with invalidate (its iSER CM header said so, and our accept promised it). */
    private boolean sendWithInvalidate;
    private long lastReceiveNanos = System.nanoTime();
    private ScheduledFuture<?> idleCheck;

    /**
     * Creates the transport of an accepted connection; the queue pair must be in INIT or later, the
     * completion queue unarmed, used by nothing else and made with {@code poller} as its channel.
     *
     * @param engineFactory makes the connection's engine over this transport
     */
    public IscsiRdmaTransport(QueuePair qp, CompletionQueue cq, CompletionPoller poller, CmId id, EventExecutor loop,
                              ByteBufAllocator alloc,
                              RegisteredMemory memory, IserLimits limits, SocketAddress localAddress,
                              Duration nopInterval, Function<IscsiTransport, ? extends IscsiEngine> engineFactory) {
        this.qp = qp;
        this.cq = cq;
        this.id = id;
        this.loop = loop;
        this.alloc = alloc;
        this.memory = memory;
        this.limits = limits;
        this.localAddress = localAddress;
        this.nopInterval = nopInterval;
        this.poller = poller;
        this.wr = new WorkRequest(1);
        this.receiveRing = new BufferSlots(limits.receiveDepth());
        this.heldReceives = new int[limits.receiveDepth()];
        this.heldLengths = new int[limits.receiveDepth()];
        this.sendBuffers = new BufferSlots(limits.sendDepth());
        this.transfers = new RdmaTransfers<>(limits.dataDepth());
        this.remoteBuffers = new RemoteBufferTable(limits.commands());
        this.engine = engineFactory.apply(this);
    }

    /**
     * Carves the ring and send buffers from registered memory and posts every receive, so that
     * the initiator's first SEND finds one (call before accepting the connection).
     *
     * @return null, or why the connection cannot be served (memory or queue exhausted)
     */
    public String prepare() {
        String shortage = receiveRing.carve(memory, limits.receiveBufferSize(), "receive ring");
        if (shortage == null) {
            shortage = sendBuffers.carve(memory, limits.sendBufferSize(), "send buffers");
        }
        if (shortage != null) {
            return shortage;
        }
        for (int i = 0; i < receiveRing.count(); i++) {
            if (!postReceive(i)) {
                return "cannot post receive " + i;
            }
        }
        poller.attach(cq, this::completed, () -> gone, () -> fail("completion queue overflow"));
        return null;
    }

    /** The connection is accepted: the engine starts the login phase. On the loop. */
    public void start() {
        active = true;
        engine.transportAttached();
        engine.transportActive();
        long ms = nopInterval.toMillis();
        if (ms > 0) {
            idleCheck = loop.scheduleAtFixedRate(this::checkIdle, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** The connection is gone (DISCONNECTED, or the accept failed): end the engine's side and free everything. On the loop. */
    public void disconnected() {
        if (gone) {
            return;
        }
        gone = true;
        active = false;
        if (idleCheck != null) {
            idleCheck.cancel(false);
        }
        try {
            engine.transportInactive();
            qp.destroy(); // no completion follows: what was posted is dropped with it
        } finally {
            releaseAll(); // also at shutdown, when the provider's or the session's loop is gone already
        }
    }

    /** The engine over this transport. */
    public IscsiEngine engine() {
        return engine;
    }

    // ------------------------------------------------------------------ IscsiTransport: the connection

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    /**
     * SCSI data buffers (what a memory store reads Data-In into) come from the registered arena,
     * so that Data-In is RDMA WRITTEN from the store's buffer without a copy; PDUs and control
     * buffers stay with {@link #alloc()}.
     */
    @Override
    public ByteBufAllocator dataAlloc() {
        return memory.allocator();
    }

    @Override
    public EventExecutor executor() {
        return loop;
    }

    @Override
    public boolean isActive() {
        return active && !closing;
    }

    @Override
    public SocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public SocketAddress remoteAddress() {
        return id.remoteAddress();
    }

    @Override
    public void send(IscsiPdu pdu) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> send(pdu)); // a second connection's session runs on another loop
            return;
        }
        if (gone || closing) {
            pdu.release();
            return;
        }
        if (sendBuffers.freeCount() == 0 || !waitingSends.isEmpty()) {
            waitingSends.add(pdu);
            updateWritability();
            return;
        }
        postPdu(pdu);
    }

    @Override
    public void sendAndFlush(IscsiPdu pdu) {
        send(pdu); // every SEND is posted at once: nothing to flush
    }

    @Override
    public void flush() {
    }

    @Override
    public void sendAndClose(IscsiPdu pdu) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> sendAndClose(pdu));
            return;
        }
        send(pdu);
        closeWhenSent = true;
        closeIfSent();
    }

    @Override
    public void close() {
        if (!loop.inEventLoop()) {
            loop.execute(this::close);
            return;
        }
        if (!closing) {
            closing = true;
            id.disconnect(); // DISCONNECTED follows on both sides, then disconnected() frees the rest
        }
    }

    @Override
    public void reading(boolean on) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> reading(on));
            return;
        }
        reading = on;
        while (reading && heldCount > 0 && !gone) {
            int slot = heldReceives[heldHead];
            int length = heldLengths[heldHead];
            heldHead = (heldHead + 1) % heldReceives.length;
            heldCount--;
            received(slot, length);
        }
    }

    @Override
    public boolean isWritable() {
        return writable;
    }

    /** No digests and one message per PDU: nothing of the framing changes at the end of the login. */
    /** Whether SCSI Responses may invalidate the initiator's read STag (set before {@link #start}). */
    void sendWithInvalidate(boolean allowed) {
        sendWithInvalidate = allowed;
    }

    @Override
    public void loginComplete(NegotiatedParameters parameters) {
    }

    @Override
    public boolean rdmaExtensions() {
        return true;
    }

    /** What one send buffer holds after the iSER header and the BHS. */
    @Override
    public int maxSendDataSegmentLength() {
        return limits.receiveDataSegmentLength();
    }

    @Override
    public void taskEnded(TaskTransfer task) {
        if (loop.inEventLoop()) {
            remoteBuffers.remove(task.itt());
        } else {
            int itt = task.itt();
            loop.execute(() -> remoteBuffers.remove(itt));
        }
    }

    // ------------------------------------------------------------------ IscsiTransport: data movement

    /**
     * RDMA READs of the task's next Data-Out from the initiator's write buffer, each into a
     * registered buffer that goes to the store as it is; at most
     * {@link IserLimits#readsPerTask()} in flight per task. The write base offset names the
     * first solicited byte, past the immediate and unsolicited data (Linux ib_iser,
     * {@code iser_prepare_write_cmd}: its buffer's address + the unsolicited size; isert reads
     * from it as it is): buffer offset {@code o} lies at write base + o - solicited start.
     */
    @Override
    public void requestDataOut(TaskTransfer task) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> requestDataOut(task));
            return;
        }
        if (gone || closing) {
            return;
        }
        int slot = remoteBuffers.find(task.itt());
        if (slot < 0 || !remoteBuffers.writeValid(slot)) {
            fail("a WRITE command (itt 0x" + Integer.toHexString(task.itt()) + ") without a write STag");
            return;
        }
        while (task.outstanding() < limits.readsPerTask() && task.requested() < task.wanted()) {
            int length = Math.min(limits.maxRdmaChunk(), task.wanted() - task.requested());
            ByteBuf into = memory.chunk(length);
            if (into == null) {
                fail("no registered memory for " + Math.min(length, RegisteredMemory.MIN_CHUNK) + " bytes of Data-Out");
                return;
            }
            length = into.capacity();
            long remote = remoteBuffers.writeBase(slot) + task.requested() - task.solicitedStart();
            if (!postData(WorkRequestOpcode.RDMA_READ, into, into.writerIndex(), length, remote,
                    remoteBuffers.writeStag(slot), task)) {
                return;
            }
            task.requested(task.requested() + length);
            task.outstanding(task.outstanding() + 1);
        }
    }

    /**
     * RDMA WRITEs of the task's Data-In into the initiator's read buffer; the status never goes
     * with them (RFC 7145): the engine's SCSI Response, posted after them on the same queue
     * pair, arrives after the data is placed.
     */
    @Override
    public boolean sendDataIn(TaskTransfer task, boolean statusAllowed) {
        ScsiCommand cmd = task.command();
        if (!loop.inEventLoop()) {
            // the task ends as soon as this returns: take what the WRITEs need, not the task
            ByteBuf data = cmd.dataIn().retain();
            int itt = task.itt();
            int edtl = cmd.expectedDataTransferLength();
            loop.execute(() -> {
                writeDataIn(itt, edtl, data);
                data.release();
            });
            return false;
        }
        writeDataIn(task.itt(), cmd.expectedDataTransferLength(), cmd.dataIn());
        return false;
    }

    /** RDMA WRITEs of the first min(EDTL, readable) bytes of {@code data} (borrowed) to the command's read buffer. */
    private void writeDataIn(int itt, int edtl, ByteBuf data) {
        if (gone || closing) {
            return;
        }
        int n = Math.min(edtl, data.readableBytes());
        int slot = remoteBuffers.find(itt);
        if (slot < 0 || !remoteBuffers.readValid(slot)) {
            fail("a READ command (itt 0x" + Integer.toHexString(itt) + ") without a read STag");
            return;
        }
        for (int off = 0; off < n; ) {
            int length = Math.min(limits.maxRdmaChunk(), n - off);
            int index = data.readerIndex() + off;
            ByteBuf from;
            if (memory.contains(data, index, length)) {
                from = data.retain(); // the store's arena buffer goes out as it is
            } else {
                from = memory.chunk(length); // a store buffer outside the registered arena: one copy
                if (from == null) {
                    fail("no registered memory for " + Math.min(length, RegisteredMemory.MIN_CHUNK) + " bytes of Data-In");
                    return;
                }
                length = from.capacity();
                ByteBufCopy.append(data, index, from, length);
                index = from.readerIndex();
            }
            if (!postData(WorkRequestOpcode.RDMA_WRITE, from, index, length,
                    remoteBuffers.readBase(slot) + off, remoteBuffers.readStag(slot), null)) {
                return;
            }
            off += length;
        }
    }

    // ------------------------------------------------------------------ posting

    private boolean postReceive(int slot) {
        return memory.postReceive(qp, wr, RECEIVE | slot, receiveRing.get(slot)) == Errno.OK;
    }

    /** iSER header, BHS, AHS, data and pad into a free send buffer; one SEND. Consumes the PDU. */
    private void postPdu(IscsiPdu pdu) {
        try {
            int dsl = pdu.data().readableBytes();
            int ahs = pdu.ahs().readableBytes();
            int length = IserHeader.LENGTH + IscsiPdu.BHS_LENGTH + ahs + (dsl + 3 & ~3);
            if (length > limits.sendBufferSize()) {
                fail("a PDU (opcode 0x" + Integer.toHexString(pdu.opcode()) + ") of " + length
                        + " bytes, above the send buffers' " + limits.sendBufferSize());
                return;
            }
            int slot = sendBuffers.take();
            ByteBuf b = sendBuffers.get(slot);
            b.writerIndex(IserHeader.LENGTH);
            IserHeader.encodeTargetControl(b, 0);
            pdu.dataSegmentLength(dsl);
            ByteBufCopy.append(pdu.bhs(), pdu.bhs().readerIndex(), b, IscsiPdu.BHS_LENGTH);
            ByteBufCopy.append(pdu.ahs(), pdu.ahs().readerIndex(), b, ahs);
            ByteBufCopy.append(pdu.data(), pdu.data().readerIndex(), b, dsl);
            b.writeZero(length - b.writerIndex());
            // The tasks a TMF, a Logout or a Reject ended may still have RDMA READs in flight;
            // once the initiator has the response it unregisters their buffers (Linux ib_iser),
            // and a READ that arrives later finds an invalid STag and kills the connection. A
            // FENCE holds such a response until every earlier READ of the queue pair is complete.
            boolean fence = endsTasks(pdu.opcode());
            int invalidate = pdu.opcode() == Opcode.SCSI_RESPONSE ? stagToInvalidate(pdu.initiatorTaskTag()) : 0;
            postSend(slot, length, fence, invalidate, "SEND");
        } finally {
            pdu.release();
        }
    }

    /** Whether a PDU of {@code opcode} may end tasks other than through their own SCSI Response. */
    private static boolean endsTasks(int opcode) {
        return opcode == Opcode.TASK_MGMT_RESPONSE || opcode == Opcode.LOGOUT_RESPONSE || opcode == Opcode.REJECT;
    }

    /**
     * The SCSI Response of a READ may invalidate the initiator's read STag (RFC 7145: the iSER CM
     * header's send-with-invalidate flags), which
     * saves it a local invalidation. Only the read STag: the Data-In WRITEs before the SEND are
     * placed before it on the same stream, whereas a write STag could still have an RDMA READ of
     * a failed command in flight. Not for bidirectional commands (Linux ib_iser checks the one
     * STag against both of its registrations). Returns the STag, or 0 for a plain SEND.
     */
    private int stagToInvalidate(int itt) {
        if (!sendWithInvalidate) {
            return 0;
        }
        int slot = remoteBuffers.find(itt);
        return slot >= 0 && remoteBuffers.readValid(slot) && !remoteBuffers.writeValid(slot)
                ? remoteBuffers.readStag(slot) : 0;
    }

    /**
     * Posts the first {@code length} bytes of send buffer {@code slot} as one SEND (with
     * invalidate of {@code invalidateStag} unless 0); if the queue pair refuses it, the slot is
     * free again and the connection fails. Returns whether it went.
     */
    private boolean postSend(int slot, int length, boolean fence, int invalidateStag, String what) {
        wr.reset();
        wr.wrId = SEND | slot;
        if (invalidateStag != 0) {
            wr.opcode = WorkRequestOpcode.SEND_WITH_INV;
            wr.invalidateRkey = invalidateStag;
        }
        wr.addSge(memory.address(sendBuffers.get(slot), 0), length, memory.lkey());
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
     * One RDMA READ into {@code buf} or WRITE from it ({@code length} bytes at {@code index});
     * the transfer table owns {@code buf} until the completion.
     */
    private boolean postData(WorkRequestOpcode opcode, ByteBuf buf, int index, int length, long remoteAddress,
                             int rkey, TaskTransfer task) {
        String refused = transfers.post(memory, qp, wr, DATA, opcode, buf, index, length, remoteAddress, rkey, task);
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
            if (ok) {
                receivedOrHeld(slot, wc.byteLen);
            } else {
                failed(wc, "receive");
            }
        } else if (kind == SEND) {
            sendBuffers.give(slot);
            if (!ok) {
                failed(wc, "SEND");
                return;
            }
            drainWaitingSends();
            closeIfSent();
        } else if (kind == DATA) {
            dataCompleted(slot, wc);
        }
    }

    private void dataCompleted(int slot, WorkCompletion wc) {
        TaskTransfer task = transfers.task(slot);
        int length = transfers.length(slot);
        ByteBuf buf = transfers.free(slot);
        if (wc.status != WorkCompletionStatus.SUCCESS) {
            buf.release();
            failed(wc, wc.opcode == null ? "RDMA transfer" : wc.opcode.toString());
            return;
        }
        if (task == null) {
            buf.release(); // a WRITE of Data-In: the data is placed
            return;
        }
        buf.writerIndex(buf.readerIndex() + length);
        engine.dataOutFetched(task, buf);
    }

    private void failed(WorkCompletion wc, String what) {
        if (wc.status == WorkCompletionStatus.WR_FLUSH_ERR) {
            close(); // the queue pair is in ERROR for a reason reported already: a disconnect or an earlier failure
            return;
        }
        fail(what + " completed " + wc.status);
    }

    /** Ends this connection only, with one log line. */
    private void fail(String why) {
        if (closing) {
            return;
        }
        LOG.warn("iSER connection {}: {}; closing it", id.remoteAddress(), why);
        close();
    }

    private void drainWaitingSends() {
        while (sendBuffers.freeCount() > 0 && !waitingSends.isEmpty() && !gone) {
            postPdu(waitingSends.poll());
        }
        updateWritability();
    }

    private void closeIfSent() {
        if (closeWhenSent && waitingSends.isEmpty() && sendBuffers.allFree()) {
            closeWhenSent = false;
            close();
        }
    }

    /** Writability follows the queue of SENDs waiting for a send buffer (DESIGN 4.4 back-pressure). */
    private void updateWritability() {
        boolean now = waitingSends.size() < limits.sendDepth();
        if (now != writable) {
            writable = now;
            engine.writabilityChanged(now);
        }
    }

    // ------------------------------------------------------------------ receive

    private void receivedOrHeld(int slot, int length) {
        lastReceiveNanos = System.nanoTime();
        if (!reading) {
            int tail = (heldHead + heldCount) % heldReceives.length;
            heldReceives[tail] = slot;
            heldLengths[tail] = length;
            heldCount++;
            return;
        }
        received(slot, length);
    }

    /**
     * One SEND of the initiator: its iSER header, then the PDU. The PDU is copied out of the ring
     * into a pooled buffer and the receive posted again at once, so the ring never waits for the
     * engine to release immediate data (RFC 7145 leaves no receive for a late SEND on iWARP).
     */
    private void received(int slot, int length) {
        ByteBuf ring = receiveRing.get(slot);
        ring.setIndex(0, length);
        IserHeader.Status status = header.decode(ring, 0, length);
        switch (status) {
            case CONTROL -> controlPdu(ring, length);
            case HELLO -> hello(ring, length);
            default -> {
                fail("malformed iSER header (" + status + ", first byte 0x"
                        + Integer.toHexString(length > 0 ? ring.getUnsignedByte(0) : 0) + ")");
                return;
            }
        }
        if (!gone && !postReceive(slot)) {
            fail("cannot post a receive again");
        }
    }

    private void controlPdu(ByteBuf ring, int length) {
        int start = IserHeader.LENGTH;
        int pduLength = length - start;
        if (pduLength < IscsiPdu.BHS_LENGTH) {
            fail("a SEND of " + length + " bytes: no whole BHS after the iSER header");
            return;
        }
        int ahs = PduParser.ahsLength(ring, start);
        int dsl = PduParser.dataSegmentLength(ring, start);
        if (IscsiPdu.BHS_LENGTH + ahs + dsl > pduLength) {
            fail("a PDU whose AHS and data (" + (ahs + dsl) + " bytes) exceed its SEND");
            return;
        }
        ByteBuf copy = alloc.directBuffer(pduLength);
        ByteBufCopy.append(ring, start, copy, pduLength);
        try {
            int opcode = PduParser.opcode(copy, 0);
            if (!parser.accepts(opcode)) {
                engine.received(PduParser.error(alloc, copy, 0, RejectReason.COMMAND_NOT_SUPPORTED, false,
                        "opcode 0x" + Integer.toHexString(opcode) + " not accepted"));
                return;
            }
            IscsiPdu pdu = parser.parse(alloc, copy, 0, IscsiPdu.BHS_LENGTH + ahs);
            if (opcode == Opcode.SCSI_COMMAND && (header.readStagValid() || header.writeStagValid())
                    && !remoteBuffers.put(pdu.initiatorTaskTag(), header)) {
                pdu.release();
                fail("more than " + limits.commands() + " commands in flight");
                return;
            }
            engine.received(pdu);
        } finally {
            copy.release();
        }
    }

    /** RFC 7145 9.3-9.4: answer a Hello with the HelloReply (version 1 or a reject). */
    private void hello(ByteBuf ring, int length) {
        switch (IserHello.decodeHello(ring, 0, length)) {
            case Decoded.Malformed<IserHello.Hello> m -> fail(m.reason());
            case Decoded.Ok<IserHello.Hello> ok -> {
                IserHello.HelloReply reply = IserHello.answer(ok.value(), limits.readsPerTask());
                int slot = sendBuffers.take();
                if (slot < 0) {
                    fail("no send buffer for the HelloReply");
                    return;
                }
                ByteBuf b = sendBuffers.get(slot);
                IserHello.encodeHelloReply(b, reply);
                if (postSend(slot, b.readableBytes(), false, 0, "HelloReply") && reply.rejected()) {
                    LOG.info("iSER connection {}: Hello for versions {}..{} rejected", id.remoteAddress(),
                            ok.value().minVersion(), ok.value().maxVersion());
                    closeWhenSent = true;
                }
            }
        }
    }

    private void checkIdle() {
        if (!gone && System.nanoTime() - lastReceiveNanos >= nopInterval.toNanos()) {
            lastReceiveNanos = System.nanoTime();
            engine.idle();
        }
    }

    // ------------------------------------------------------------------ end

    private void releaseAll() {
        receiveRing.releaseAll();
        sendBuffers.releaseAll();
        IscsiPdu waiting;
        while ((waiting = waitingSends.poll()) != null) {
            waiting.release();
        }
        transfers.releaseAll();
        heldCount = 0;
    }
}
