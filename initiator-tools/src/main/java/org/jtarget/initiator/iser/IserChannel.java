package org.jtarget.initiator.iser;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jtarget.initiator.raw.IscsiDigest;
import org.jtarget.initiator.raw.IscsiProtocolException;
import org.jtarget.initiator.raw.PduChannel;
import org.jtarget.initiator.raw.RawPdu;
import org.jtarget.initiator.rdma.CompletionWaiter;
import org.jtarget.initiator.rdma.StoreEndpointClient;
import org.jtarget.initiator.rdma.TcpProviderStack;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionOpcode;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.QueuePairBringUp;
import org.jtarget.rdma.iwarp.TcpConnectionManager;

/**
 * One iSER connection (RFC 7145) of the initiator over the iwarp provider, as a {@link PduChannel}:
 * every PDU, the login's included (iSER-assisted login), travels in an RDMA SEND behind the 28-byte
 * iSER header, and a SCSI Command's header names a data slot of registered memory (STag and
 * absolute address) that the target RDMA READs the Data-Out from and RDMA WRITEs the Data-In into.
 *
 * <p>All memory is one pinned arena registered once (as rping and rdma-bench take it): a ring of
 * receive buffers posted before the connection is made (iWARP has no receiver-not-ready retry), a
 * pool of send buffers recycled on their SEND completions, and {@link #slots()} data slots. The
 * connect request carries the iSER CM header 0xc0: no zero-based addresses, no SEND with
 * invalidate (the STag stays valid for every command). Not thread-safe; nothing is allocated per
 * command except the received PDU's arrays, as over TCP.
 *
 * <p>Two ways to use it: blocking ({@link #read} sleeps on the completion queue's events, as any
 * caller's thread may), or driven ({@link #drive}): a load loop runs on the connection's socket
 * event loop, which places the target's data and SENDs, so its commands leave with that loop's
 * next write and its responses are taken where they complete, with no thread hand-over.
 *
 * <p>The header is encoded here from RFC 7145 9.2, not with the daemon's codec, so that a wrong
 * constant on either side fails a test instead of cancelling out.
 */
public final class IserChannel implements PduChannel, PduChannel.DirectData, PduChannel.Driven {

    /** The data segment we accept in a received PDU: our InitiatorRecvDataSegmentLength (RFC 7145 6.5). */
    public static final int RECEIVE_DATA_SEGMENT_LENGTH = 8192;
    /** The data segment the target takes in a SEND before and after login (its TargetRecvDataSegmentLength). */
    public static final int SEND_DATA_SEGMENT_LENGTH = 8192;
    /** PDUs the target may send beyond one response per command: NOP-In, Async Message, Reject. */
    public static final int UNEXPECTED_PDUS = 8;
    /** RFC 7145 9.2: the iSER header of an iSCSI control-type PDU. */
    static final int HEADER_LENGTH = 28;
    static final int CONTROL = 0x10;
    static final int WRITE_STAG_VALID = 0x08;
    static final int READ_STAG_VALID = 0x04;
    /** RFC 7145 Annex A (Linux ISER_ZBVA_NOT_SUP | ISER_SEND_W_INV_NOT_SUP): absolute addresses, no invalidation. */
    static final byte[] CM_REQUEST = {(byte) 0xc0, 0, 0, 0};

    private static final int MAX_AHS = 264;
    private static final int MESSAGE_BYTES = align(HEADER_LENGTH + RawPdu.BHS_LENGTH + MAX_AHS
            + RECEIVE_DATA_SEGMENT_LENGTH + 3, 64);
    private static final int PAGE = 4096;
    private static final long SEND_TAG = 1L << 32;
    private static final long POLL_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final TcpProviderStack stack;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final CompletionWaiter waiter;
    private final CompletionDispatch dispatch;
    private final MemoryRegion region;
    private final MemorySegment memory;
    private final CompletableFuture<byte[]> termination;
    private final int receives;
    private final int sends;
    private final int slots;
    private final int slotBytes;
    private final long sendBase;
    private final long dataBase;
    private final WorkRequest wr = new WorkRequest(1);
    /** Completions taken per poll: a burst of responses costs one wake-up. */
    private final WorkCompletion[] wc = newCompletions(16);
    /** Send buffers free for a PDU (a stack of indices). */
    private final int[] freeSends;
    private int freeSendCount;
    /** Receive completions polled while waiting for a send buffer, oldest first (a ring). */
    private final int[] arrivedSlot;
    private final int[] arrivedLength;
    private int arrivedHead;
    private int arrivedCount;
    private long readTimeoutNanos;
    private CmId connection;
    private boolean closed;
    /** A flushed completion was seen: the connection is gone once the PDUs before it are read. */
    private boolean ended;
    /** A driven step is running (on the I/O thread): nothing may wait for a completion. */
    private boolean driving;
    /** PDUs taken by driven steps, for the caller's read timeout. */
    private volatile long polled;

    private IserChannel(TcpProviderStack stack, QueuePair qp, CompletionQueue cq, CompletionWaiter waiter,
                        CompletionDispatch dispatch, MemoryRegion region, CompletableFuture<byte[]> termination,
                        int slots, int slotBytes, Duration timeout) {
        this.stack = stack;
        this.qp = qp;
        this.cq = cq;
        this.waiter = waiter;
        this.dispatch = dispatch;
        this.region = region;
        this.memory = region.segment();
        this.termination = termination;
        this.receives = slots + UNEXPECTED_PDUS;
        this.sends = slots + UNEXPECTED_PDUS;
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.sendBase = (long) receives * MESSAGE_BYTES;
        this.dataBase = align(sendBase + (long) sends * MESSAGE_BYTES, PAGE);
        this.freeSends = new int[sends];
        for (int i = sends - 1; i >= 0; i--) {
            freeSends[freeSendCount++] = i;
        }
        this.arrivedSlot = new int[receives];
        this.arrivedLength = new int[receives];
        this.readTimeoutNanos = timeout.toNanos();
    }

    /**
     * Connects to the iSER portal at {@code host:port} with {@code slots} data slots of
     * {@code slotBytes} each (commands in flight, largest transfer).
     *
     * @param timeout for the connection, then for each {@link #read}
     */
    public static IserChannel connect(String host, int port, Duration timeout, int slots, int slotBytes)
            throws IOException {
        if (slots < 1 || slotBytes < 1) {
            throw new IllegalArgumentException("slots " + slots + " of " + slotBytes + " bytes");
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new IOException("unknown host " + host);
        }
        int alignedSlot = (int) align(slotBytes, PAGE);
        long bytes = align(2L * (slots + UNEXPECTED_PDUS) * MESSAGE_BYTES, PAGE) + (long) slots * alignedSlot;
        TcpProviderStack stack = TcpProviderStack.open(bytes);
        try {
            return open(stack, address, timeout, slots, alignedSlot);
        } catch (RdmaException e) {
            stack.close();
            throw new IOException("cannot set up the iSER connection: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private static IserChannel open(TcpProviderStack stack, InetSocketAddress address, Duration timeout, int slots,
                                    int slotBytes) throws IOException, RdmaException {
        int depth = slots + UNEXPECTED_PDUS;
        ProtectionDomain pd = stack.device().allocateProtectionDomain();
        CompletionWaiter waiter = new CompletionWaiter();
        CompletionDispatch dispatch = new CompletionDispatch(waiter);
        // room for every SEND and receive twice over: a flush after an error never overflows it
        CompletionQueue cq = stack.device().createCompletionQueue(4 * depth, dispatch);
        QueuePair qp = stack.device().createQueuePair(pd, new QueuePairInitAttributes(cq, cq, depth, depth, 1, 1));
        // the target RDMA WRITEs Data-In into the data slots and RDMA READs Data-Out from them
        MemoryRegion region = pd.registerMemoryRegion(stack.memory().segment(),
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        CompletableFuture<byte[]> termination = new CompletableFuture<>();
        IserChannel channel = new IserChannel(stack, qp, cq, waiter, dispatch, region, termination, slots, slotBytes,
                timeout);
        QueuePairBringUp.toInit(qp);
        for (int i = 0; i < channel.receives; i++) {
            channel.postReceive(i);
        }
        CmEvent answer = StoreEndpointClient.handshake(stack.connectionManager(), qp, address, CM_REQUEST, timeout,
                termination);
        if (answer.type() != CmEventType.ESTABLISHED) {
            throw new IOException("iSER connection to " + address + " " + (answer.type() == CmEventType.REJECTED
                    ? "rejected" : "not established (" + answer.type() + ")"));
        }
        channel.connection = answer.id();
        return channel;
    }

    /** Null when the registered memory is locked in RAM, else why not. */
    public String unpinnedNote() {
        return stack.memory().unpinnedNote();
    }

    // ------------------------------------------------------------------ PduChannel

    /**
     * RFC 7145 6.3-6.7: iSER on ({@code RDMAExtensions=Yes}) with the control-PDU sizes our buffers
     * hold, {@code MaxRecvDataSegmentLength} and {@code MaxOutstandingR2T} left out (they do not
     * apply), no digests, {@code InitialR2T=Yes} (no unsolicited Data-Out PDUs) and
     * {@code ImmediateData=Yes} with {@code FirstBurstLength} of one SEND's data: a write that fits
     * goes whole as immediate data in its command's SEND, any larger one goes without immediate
     * data and the target fetches all of it from the write STag's base (so no implementation can
     * disagree on where a solicited part starts).
     *
     * @throws IllegalArgumentException when the caller asked for digests, which iSER does not carry
     */
    @Override
    public Map<String, String> operationalKeys(Map<String, String> chosen) {
        Map<String, String> keys = new LinkedHashMap<>(chosen);
        for (String digest : new String[] {"HeaderDigest", "DataDigest"}) {
            if (!"None".equals(keys.getOrDefault(digest, "None"))) {
                throw new IllegalArgumentException("iSER carries no digests (RFC 7145): " + digest + "="
                        + keys.get(digest) + " cannot be offered");
            }
        }
        keys.remove("MaxRecvDataSegmentLength");
        keys.remove("MaxOutstandingR2T");
        keys.put("InitialR2T", "Yes");
        keys.put("ImmediateData", "Yes");
        keys.put("FirstBurstLength", Integer.toString(SEND_DATA_SEGMENT_LENGTH));
        keys.put("RDMAExtensions", "Yes");
        keys.put("InitiatorRecvDataSegmentLength", Integer.toString(RECEIVE_DATA_SEGMENT_LENGTH));
        keys.put("TargetRecvDataSegmentLength", Integer.toString(SEND_DATA_SEGMENT_LENGTH));
        keys.put("MaxOutstandingUnexpectedPDUs", Integer.toString(UNEXPECTED_PDUS));
        return keys;
    }

    @Override
    public DirectData directData() {
        return this;
    }

    @Override
    public Driven driven() {
        return this;
    }

    @Override
    public void send(RawPdu pdu, boolean headerDigest, boolean dataDigest, IscsiDigest.Kind corrupt)
            throws IOException {
        requireNoDigests(headerDigest, dataDigest, corrupt);
        postPdu(pdu, 0, 0, 0);
    }

    @Override
    public void sendBytes(byte[] bytes) throws IOException {
        if (bytes.length > MESSAGE_BYTES) {
            throw new IllegalArgumentException(bytes.length + " bytes do not fit one " + MESSAGE_BYTES + "-byte SEND");
        }
        int buffer = takeSendBuffer();
        long at = sendBase + (long) buffer * MESSAGE_BYTES;
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, at, bytes.length);
        postSend(buffer, bytes.length);
    }

    @Override
    public RawPdu read(int maxDataSegmentLength, boolean headerDigest, boolean dataDigest) throws IOException {
        requireNoDigests(headerDigest, dataDigest, null);
        long deadline = System.nanoTime() + readTimeoutNanos;
        while (arrivedCount == 0) {
            // a poll may bring a PDU and the flushes of the disconnect that followed it (a Logout
            // Response, then the target's close): the PDU is still read, the end comes after it
            if (!pollOnce(deadline) && arrivedCount == 0) {
                return null; // flushed: the connection is gone
            }
        }
        return takeArrived(maxDataSegmentLength);
    }

    /** The oldest received PDU, its receive buffer posted again. */
    private RawPdu takeArrived(int maxDataSegmentLength) throws IOException {
        int slot = arrivedSlot[arrivedHead];
        int length = arrivedLength[arrivedHead];
        arrivedHead = (arrivedHead + 1) % receives;
        arrivedCount--;
        RawPdu pdu = parse((long) slot * MESSAGE_BYTES, length, maxDataSegmentLength);
        postReceive(slot);
        return pdu;
    }

    @Override
    public void readTimeout(Duration timeout) {
        readTimeoutNanos = timeout.toNanos();
    }

    /** iSER has no half-close: the connection is closed. */
    @Override
    public void shutdownOutput() {
        close();
    }

    @Override
    public boolean isOpen() {
        return !closed && !termination.isDone();
    }

    /** Disconnects and frees everything (event loop, queue pair, registered memory). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (connection != null) {
            connection.disconnect();
        }
        stack.close();
    }

    // ------------------------------------------------------------------ Driven

    @Override
    public void drive(Step step) throws IOException {
        Executor loop = connection.ioExecutor();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable turn = new Runnable() {
            @Override
            public void run() {
                turn(step, loop, this, done);
            }
        };
        loop.execute(turn);
        await(done);
    }

    /**
     * One turn on the I/O thread: steps while completions are there, then arms the queue so that
     * its next completion brings the next turn (armed before the last look, so none goes unseen).
     */
    private void turn(Step step, Executor loop, Runnable again, CompletableFuture<Void> done) {
        driving = true;
        try {
            while (!step.run()) {
                dispatch.arm(loop, again);
                cq.requestNotify(false);
                if (cq.size() == 0 || !dispatch.disarm(again)) {
                    return; // the next completion event runs the next turn
                }
            }
            done.complete(null);
        } catch (IOException | RuntimeException e) {
            done.completeExceptionally(e);
        } finally {
            driving = false;
        }
    }

    /** Waits for a driven loop to end; fails when no PDU arrives within the read timeout. */
    private void await(CompletableFuture<Void> done) throws IOException {
        long seen = polled;
        long quietSince = System.nanoTime();
        while (true) {
            try {
                done.get(POLL_SLICE_NANOS, TimeUnit.NANOSECONDS);
                return;
            } catch (TimeoutException e) {
                long now = System.nanoTime();
                if (polled != seen) {
                    seen = polled;
                    quietSince = now;
                } else if (now - quietSince >= readTimeoutNanos) {
                    throw noCompletion();
                }
            } catch (ExecutionException e) {
                throw rethrown(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while the iSER loop ran");
            }
        }
    }

    private static IOException rethrown(Throwable cause) {
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        return new IOException(cause);
    }

    @Override
    public RawPdu poll(int maxDataSegmentLength) throws IOException {
        if (arrivedCount == 0) {
            takeCompletions();
        }
        if (arrivedCount == 0) {
            if (ended) {
                throw new EOFException("the target closed the connection: " + describeEnd());
            }
            return null;
        }
        polled++; // only the I/O thread writes it
        return takeArrived(maxDataSegmentLength);
    }

    /** Handles every completion there is, without waiting. */
    private void takeCompletions() throws IOException {
        int n;
        while ((n = cq.poll(wc, wc.length)) > 0) {
            for (int i = 0; i < n; i++) {
                completed(wc[i]);
            }
        }
        if (n < 0) {
            throw new IOException("iSER completion queue overflowed");
        }
    }

    // ------------------------------------------------------------------ DirectData

    @Override
    public int slots() {
        return slots;
    }

    @Override
    public int slotBytes() {
        return slotBytes;
    }

    @Override
    public void stage(int slot, byte[] from, int offset, int length) {
        checkSlot(slot, length);
        MemorySegment.copy(from, offset, memory, ValueLayout.JAVA_BYTE, slotOffset(slot), length);
    }

    @Override
    public void take(int slot, byte[] into, int offset, int length) {
        checkSlot(slot, length);
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, slotOffset(slot), into, offset, length);
    }

    @Override
    public void sendCommand(RawPdu command, int slot, int readLength, int writeLength) throws IOException {
        checkSlot(slot, Math.max(readLength, writeLength));
        int flags = (writeLength > 0 ? WRITE_STAG_VALID : 0) | (readLength > 0 ? READ_STAG_VALID : 0);
        postPdu(command, flags, region.address() + slotOffset(slot), region.rkey());
    }

    // ------------------------------------------------------------------ sending

    /** Writes the iSER header (STags of {@code flags}' directions naming {@code address}) and the PDU into a send buffer and posts it. */
    private void postPdu(RawPdu pdu, int flags, long address, int stag) throws IOException {
        byte[] ahs = pdu.ahs();
        byte[] data = pdu.data();
        int length = HEADER_LENGTH + RawPdu.BHS_LENGTH + ahs.length + RawPdu.paddedLength(data.length);
        if (length > MESSAGE_BYTES) {
            throw new IllegalArgumentException(pdu + " does not fit one " + MESSAGE_BYTES + "-byte SEND");
        }
        int buffer = takeSendBuffer();
        long at = sendBase + (long) buffer * MESSAGE_BYTES;
        writeHeader(at, flags, address, stag);
        long p = at + HEADER_LENGTH;
        MemorySegment.copy(pdu.bhs(), 0, memory, ValueLayout.JAVA_BYTE, p, RawPdu.BHS_LENGTH);
        p += RawPdu.BHS_LENGTH;
        MemorySegment.copy(ahs, 0, memory, ValueLayout.JAVA_BYTE, p, ahs.length);
        p += ahs.length;
        MemorySegment.copy(data, 0, memory, ValueLayout.JAVA_BYTE, p, data.length);
        for (int pad = data.length; pad < RawPdu.paddedLength(data.length); pad++) {
            memory.set(ValueLayout.JAVA_BYTE, p + pad, (byte) 0); // no slice object per PDU
        }
        postSend(buffer, length);
    }

    /** RFC 7145 9.2: flags, three reserved bytes, write STag + base offset, read STag + base offset. */
    private void writeHeader(long at, int flags, long address, int stag) {
        boolean write = (flags & WRITE_STAG_VALID) != 0;
        boolean read = (flags & READ_STAG_VALID) != 0;
        memory.set(INT, at, (CONTROL | flags) << 24);
        memory.set(INT, at + 4, write ? stag : 0);
        memory.set(LONG, at + 8, write ? address : 0);
        memory.set(INT, at + 16, read ? stag : 0);
        memory.set(LONG, at + 20, read ? address : 0);
    }

    private void postSend(int buffer, int length) throws IOException {
        wr.reset();
        wr.wrId = SEND_TAG | buffer;
        wr.opcode = WorkRequestOpcode.SEND;
        wr.sendFlags = SendFlags.SIGNALED; // its completion frees the buffer
        wr.addSge(region.address() + sendBase + (long) buffer * MESSAGE_BYTES, length, region.lkey());
        int e = qp.postSend(wr);
        if (e != Errno.OK) {
            freeSends[freeSendCount++] = buffer;
            throw new IOException("iSER SEND refused (" + e + "): " + describeEnd());
        }
    }

    /** A free send buffer, polling completions until a SEND completes when all are in flight. */
    private int takeSendBuffer() throws IOException {
        if (freeSendCount == 0 && driving) {
            // SENDs complete on this thread: waiting here would never end; with one command per
            // data slot in flight and UNEXPECTED_PDUS buffers more, a step never runs out
            takeCompletions();
            if (freeSendCount == 0) {
                throw new IOException("all " + sends + " iSER send buffers are in flight");
            }
        }
        long deadline = System.nanoTime() + readTimeoutNanos;
        while (freeSendCount == 0) {
            if (!pollOnce(deadline)) {
                throw new IOException("iSER connection lost: " + describeEnd());
            }
        }
        return freeSends[--freeSendCount];
    }

    // ------------------------------------------------------------------ completions

    /**
     * Polls the completions there are (waiting until {@code deadline} for one): a SEND frees its
     * buffer, a receive is queued for {@link #read}. Returns false when the connection is gone (a flushed request).
     *
     * @throws SocketTimeoutException when nothing completes before the deadline
     */
    private boolean pollOnce(long deadline) throws IOException {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw noCompletion();
            }
            int n;
            try {
                n = waiter.pollWithin(cq, wc, Math.min(left, POLL_SLICE_NANOS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for an iSER completion");
            }
            if (n > 0) {
                boolean alive = true;
                for (int i = 0; i < n; i++) {
                    alive &= completed(wc[i]);
                }
                return alive;
            }
            if (termination.isDone() && cq.size() == 0) {
                return false;
            }
        }
    }

    private SocketTimeoutException noCompletion() {
        return new SocketTimeoutException("no iSER completion within "
                + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos) + " ms");
    }

    private boolean completed(WorkCompletion c) throws IOException {
        if (c.status == WorkCompletionStatus.WR_FLUSH_ERR) {
            ended = true;
            return false;
        }
        if (c.status != WorkCompletionStatus.SUCCESS) {
            throw new IOException("iSER " + c.opcode + " failed with " + c.status + ": " + describeEnd());
        }
        if ((c.wrId & SEND_TAG) != 0) {
            freeSends[freeSendCount++] = (int) c.wrId;
        } else if (c.opcode == WorkCompletionOpcode.RECV) {
            int tail = (arrivedHead + arrivedCount) % receives;
            arrivedSlot[tail] = (int) c.wrId;
            arrivedLength[tail] = c.byteLen;
            arrivedCount++;
        }
        return true;
    }

    private void postReceive(int slot) throws IOException {
        wr.reset();
        wr.wrId = slot;
        wr.addSge(region.address() + (long) slot * MESSAGE_BYTES, MESSAGE_BYTES, region.lkey());
        int e = qp.postRecv(wr);
        if (e != Errno.OK) {
            throw new IOException("iSER receive refused (" + e + "): " + describeEnd());
        }
    }

    // ------------------------------------------------------------------ receiving

    /** The PDU of a received SEND at {@code at}: its iSER header must be a control-type one (RFC 7145 9.2). */
    private RawPdu parse(long at, int length, int maxDataSegmentLength) throws IOException {
        if (length < HEADER_LENGTH + RawPdu.BHS_LENGTH) {
            throw new IscsiProtocolException("a SEND of " + length + " bytes is shorter than an iSER header and a BHS");
        }
        int flags = memory.get(ValueLayout.JAVA_BYTE, at) & 0xff;
        if ((flags & 0xf0) != CONTROL) {
            throw new IscsiProtocolException("iSER header with opcode 0x" + Integer.toHexString(flags >>> 4)
                    + " where a control-type PDU was expected");
        }
        byte[] bhs = new byte[RawPdu.BHS_LENGTH];
        long p = at + HEADER_LENGTH;
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, p, bhs, 0, bhs.length);
        RawPdu header = RawPdu.wrap(bhs, new byte[0], new byte[0]);
        int ahsLength = header.totalAhsLength() * 4;
        int dsl = header.dataSegmentLength();
        if (dsl > maxDataSegmentLength || HEADER_LENGTH + RawPdu.BHS_LENGTH + ahsLength + dsl > length) {
            throw new IscsiProtocolException(header + " claims " + ahsLength + " bytes of AHS and " + dsl
                    + " of data in a " + length + "-byte SEND");
        }
        p += RawPdu.BHS_LENGTH;
        byte[] ahs = new byte[ahsLength];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, p, ahs, 0, ahsLength);
        byte[] data = new byte[dsl];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, p + ahsLength, data, 0, dsl);
        return RawPdu.wrap(bhs, ahs, data);
    }

    // ------------------------------------------------------------------ helpers

    private long slotOffset(int slot) {
        return dataBase + (long) slot * slotBytes;
    }

    private void checkSlot(int slot, int length) {
        if (slot < 0 || slot >= slots || length < 0 || length > slotBytes) {
            throw new IllegalArgumentException(length + " bytes in data slot " + slot + " of " + slots + " slots of "
                    + slotBytes + " bytes");
        }
    }

    private static void requireNoDigests(boolean headerDigest, boolean dataDigest, IscsiDigest.Kind corrupt) {
        if (headerDigest || dataDigest || corrupt != null) {
            throw new IllegalStateException("iSER carries no digests (RFC 7145)");
        }
    }

    /** Why the connection ended, as far as known. */
    private String describeEnd() {
        if (!termination.isDone()) {
            return "the connection is in error";
        }
        return "the target disconnected" + (termination.getNow(null) != null && termination.getNow(null).length > 0
                ? " (" + TcpConnectionManager.terminationStatus(termination.getNow(null)) + ")" : "");
    }

    private static WorkCompletion[] newCompletions(int n) {
        WorkCompletion[] a = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            a[i] = new WorkCompletion();
        }
        return a;
    }

    private static long align(long n, int to) {
        return (n + to - 1) / to * to;
    }

    private static int align(int n, int to) {
        return (n + to - 1) / to * to;
    }
}
