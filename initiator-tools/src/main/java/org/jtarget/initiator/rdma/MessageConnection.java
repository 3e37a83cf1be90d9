package org.jtarget.initiator.rdma;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * One reliable connection of the iwarp provider that carries a storage protocol's messages in
 * SENDs while the target moves the commands' data with RDMA READ and WRITE: what the iSER
 * ({@code org.jtarget.initiator.iser}) and SRP ({@code org.jtarget.initiator.srp}) initiators
 * share; they frame their messages in the memory this gives them.
 *
 * <p>All memory is one pinned arena registered once (as rping and rdma-bench take it), cut up by
 * a {@link Layout}: a ring of receive buffers posted before the connection is made (iWARP has no
 * receiver-not-ready retry), a pool of send buffers recycled on their SEND completions, and data
 * slots the target reads and writes through the region's rkey at their absolute addresses. Not
 * thread-safe; nothing is allocated per message.
 *
 * <p>Two ways to use it: blocking ({@link #awaitMessage} sleeps on the completion queue's events,
 * as any caller's thread may), or driven ({@link #drive}): a load loop runs on the connection's
 * socket event loop, which places the target's data and SENDs, so its messages leave with that
 * loop's next write and the target's are taken where they complete, with no thread hand-over.
 */
public final class MessageConnection implements AutoCloseable {

    private static final int PAGE = 4096;
    private static final int CACHE_LINE = 64;
    private static final long SEND_TAG = 1L << 32;
    private static final long POLL_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * How the registered memory is cut up: {@code receives} buffers of {@code receiveBytes} (one per
     * message the target may have sent and we not yet read), {@code sends} of {@code sendBytes},
     * and {@code slots} data slots of {@code slotBytes} (commands in flight, largest transfer).
     */
    public record Layout(int receives, int receiveBytes, int sends, int sendBytes, int slots, int slotBytes) {

        public Layout {
            if (receives < 1 || receiveBytes < 1 || sends < 1 || sendBytes < 1 || slots < 1 || slotBytes < 1) {
                throw new IllegalArgumentException("bad layout " + receives + "x" + receiveBytes + ", " + sends + "x"
                        + sendBytes + ", " + slots + "x" + slotBytes);
            }
            receiveBytes = (int) align(receiveBytes, CACHE_LINE);
            sendBytes = (int) align(sendBytes, CACHE_LINE);
            slotBytes = (int) align(slotBytes, PAGE);
        }

        long sendBase() {
            return (long) receives * receiveBytes;
        }

        long dataBase() {
            return align(sendBase() + (long) sends * sendBytes, PAGE);
        }

        long bytes() {
            return dataBase() + (long) slots * slotBytes;
        }
    }

    /** The target refused the connection; its reject's private data says why in the protocol's terms. */
    public static final class Rejected extends IOException {
        private final transient byte[] privateData;

        Rejected(String message, byte[] privateData) {
            super(message);
            this.privateData = privateData == null ? new byte[0] : privateData.clone();
        }

        /** The reject's private data (empty if it had none). */
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** One turn of a {@link #drive} loop: handles what has arrived; true when the loop is done. */
    @FunctionalInterface
    public interface Step {
        boolean run() throws IOException;
    }

    private final String protocol;
    private final TcpProviderStack stack;
    private final Layout layout;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final CompletionWaiter waiter;
    private final CompletionDispatch dispatch;
    private final MemoryRegion region;
    private final MemorySegment memory;
    private final CompletableFuture<byte[]> termination = new CompletableFuture<>();
    private final WorkRequest wr = new WorkRequest(1);
    /** Completions taken per poll: a burst of answers costs one wake-up. */
    private final WorkCompletion[] wc = newCompletions(16);
    /** Send buffers free for a message (a stack of indices). */
    private final int[] freeSends;
    private int freeSendCount;
    /** Receive completions not read yet, oldest first (a ring). */
    private final int[] arrivedSlot;
    private final int[] arrivedLength;
    private int arrivedHead;
    private int arrivedCount;
    private long readTimeoutNanos;
    private CmId connection;
    private byte[] acceptData;
    private boolean closed;
    /** A flushed completion was seen: the connection is gone once the messages before it are read. */
    private boolean ended;
    /** A driven step is running (on the I/O thread): nothing may wait for a completion. */
    private boolean driving;
    /** Messages taken by driven steps, for the caller's read timeout. */
    private volatile long polled;

    private MessageConnection(String protocol, TcpProviderStack stack, Layout layout, QueuePair qp,
                              CompletionQueue cq, CompletionWaiter waiter, CompletionDispatch dispatch,
                              MemoryRegion region, Duration timeout) {
        this.protocol = protocol;
        this.stack = stack;
        this.layout = layout;
        this.qp = qp;
        this.cq = cq;
        this.waiter = waiter;
        this.dispatch = dispatch;
        this.region = region;
        this.memory = region.segment();
        this.freeSends = new int[layout.sends()];
        for (int i = layout.sends() - 1; i >= 0; i--) {
            freeSends[freeSendCount++] = i;
        }
        this.arrivedSlot = new int[layout.receives()];
        this.arrivedLength = new int[layout.receives()];
        this.readTimeoutNanos = timeout.toNanos();
    }

    /**
     * Connects to {@code host:port} with {@code request} as the connect request's private data.
     *
     * @param protocol names the connection in messages ({@code iSER}, {@code SRP})
     * @param timeout  for the connection, then for each wait for a message
     * @throws Rejected    when the target rejects the connection
     * @throws IOException when nothing answers, or the answer is neither an accept nor a reject
     */
    public static MessageConnection connect(String protocol, String host, int port, Layout layout, byte[] request,
                                            Duration timeout) throws IOException {
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new IOException("unknown host " + host);
        }
        TcpProviderStack stack = TcpProviderStack.open(layout.bytes());
        try {
            return open(protocol, stack, layout, address, request, timeout);
        } catch (RdmaException e) {
            stack.close();
            throw new IOException("cannot set up the " + protocol + " connection: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private static MessageConnection open(String protocol, TcpProviderStack stack, Layout layout,
                                          InetSocketAddress address, byte[] request, Duration timeout)
            throws IOException, RdmaException {
        ProtectionDomain pd = stack.device().allocateProtectionDomain();
        CompletionWaiter waiter = new CompletionWaiter();
        CompletionDispatch dispatch = new CompletionDispatch(waiter);
        // room for every SEND and receive twice over: a flush after an error never overflows it
        CompletionQueue cq = stack.device().createCompletionQueue(2 * (layout.sends() + layout.receives()), dispatch);
        QueuePair qp = stack.device().createQueuePair(pd, new QueuePairInitAttributes(cq, cq, layout.sends(),
                layout.receives(), 1, 1));
        // the target RDMA WRITEs read data into the data slots and RDMA READs write data from them
        MemoryRegion region = pd.registerMemoryRegion(stack.memory().segment(),
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        MessageConnection c = new MessageConnection(protocol, stack, layout, qp, cq, waiter, dispatch, region,
                timeout);
        QueuePairBringUp.toInit(qp);
        for (int i = 0; i < layout.receives(); i++) {
            c.postReceive(i);
        }
        CmEvent answer = StoreEndpointClient.handshake(stack.connectionManager(), qp, address, request, timeout,
                c.termination);
        if (answer.type() == CmEventType.REJECTED) {
            throw new Rejected(protocol + " connection to " + address + " rejected", answer.privateData());
        }
        if (answer.type() != CmEventType.ESTABLISHED) {
            throw new IOException(protocol + " connection to " + address + " not established (" + answer.type() + ")");
        }
        c.connection = answer.id();
        c.acceptData = answer.privateData() == null ? new byte[0] : answer.privateData();
        return c;
    }

    /** The private data of the target's accept (empty if it had none). */
    public byte[] acceptData() {
        return acceptData.clone();
    }

    /** Null when the registered memory is locked in RAM, else why not. */
    public String unpinnedNote() {
        return stack.memory().unpinnedNote();
    }

    /** The registered memory: receive buffers, send buffers and data slots. */
    public MemorySegment memory() {
        return memory;
    }

    public Layout layout() {
        return layout;
    }

    // ------------------------------------------------------------------ data slots

    /** Where data slot {@code slot} starts in {@link #memory()}. */
    public long slotOffset(int slot) {
        return layout.dataBase() + (long) slot * layout.slotBytes();
    }

    /** The absolute address of data slot {@code slot}, as the target addresses it. */
    public long slotAddress(int slot) {
        return region.address() + slotOffset(slot);
    }

    /** The key through which the target reads and writes the data slots. */
    public int rkey() {
        return region.rkey();
    }

    /** Copies {@code length} bytes of {@code from} into {@code slot}. */
    public void stage(int slot, byte[] from, int offset, int length) {
        checkSlot(slot, length);
        MemorySegment.copy(from, offset, memory, ValueLayout.JAVA_BYTE, slotOffset(slot), length);
    }

    /** Copies the first {@code length} bytes of {@code slot} into {@code into}. */
    public void take(int slot, byte[] into, int offset, int length) {
        checkSlot(slot, length);
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, slotOffset(slot), into, offset, length);
    }

    /** Fails unless {@code length} bytes fit data slot {@code slot}. */
    public void checkSlot(int slot, int length) {
        if (slot < 0 || slot >= layout.slots() || length < 0 || length > layout.slotBytes()) {
            throw new IllegalArgumentException(length + " bytes in data slot " + slot + " of " + layout.slots()
                    + " slots of " + layout.slotBytes() + " bytes");
        }
    }

    // ------------------------------------------------------------------ sending

    /** Where send buffer {@code buffer} starts in {@link #memory()}. */
    public long sendOffset(int buffer) {
        return layout.sendBase() + (long) buffer * layout.sendBytes();
    }

    /** A free send buffer, polling completions until a SEND completes when all are in flight. */
    public int takeSendBuffer() throws IOException {
        if (freeSendCount == 0 && driving) {
            // SENDs complete on this thread: waiting here would never end; the layout gives a
            // driven loop a buffer per command in flight and some more, so it never runs out
            takeCompletions();
            if (freeSendCount == 0) {
                throw new IOException("all " + layout.sends() + " " + protocol + " send buffers are in flight");
            }
        }
        long deadline = System.nanoTime() + readTimeoutNanos;
        while (freeSendCount == 0) {
            if (!pollOnce(deadline)) {
                throw new IOException(protocol + " connection lost: " + describeEnd());
            }
        }
        return freeSends[--freeSendCount];
    }

    /** SENDs the first {@code length} bytes of send buffer {@code buffer} (from {@link #takeSendBuffer}). */
    public void postSend(int buffer, int length) throws IOException {
        if (length > layout.sendBytes()) {
            freeSends[freeSendCount++] = buffer;
            throw new IllegalArgumentException(length + " bytes do not fit one " + layout.sendBytes()
                    + "-byte send buffer");
        }
        wr.reset();
        wr.wrId = SEND_TAG | buffer;
        wr.opcode = WorkRequestOpcode.SEND;
        wr.sendFlags = SendFlags.SIGNALED; // its completion frees the buffer
        wr.addSge(region.address() + sendOffset(buffer), length, region.lkey());
        int e = qp.postSend(wr);
        if (e != Errno.OK) {
            freeSends[freeSendCount++] = buffer;
            throw new IOException(protocol + " SEND refused (" + e + "): " + describeEnd());
        }
    }

    /**
     * Waits (at most the read timeout) until every SEND posted has completed, so that a last
     * message (a logout) has left before the connection is closed; false when the connection ended
     * or the time ran out first. Messages arriving meanwhile stay queued.
     */
    public boolean flushSends() throws IOException {
        long deadline = System.nanoTime() + readTimeoutNanos;
        try {
            while (freeSendCount < layout.sends()) {
                if (!pollOnce(deadline)) {
                    return false;
                }
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ receiving

    /**
     * Waits for a message (one the target sent and {@link #releaseMessage} has not released yet);
     * false when the connection ended first. A poll may bring a message and the flushes of the
     * disconnect that followed it (an answer to a logout, then the target's close): the message is
     * still read, the end comes after it.
     *
     * @throws SocketTimeoutException when nothing arrives within the read timeout
     */
    public boolean awaitMessage() throws IOException {
        long deadline = System.nanoTime() + readTimeoutNanos;
        while (arrivedCount == 0) {
            if (!pollOnce(deadline) && arrivedCount == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Inside a {@link #drive} step only: whether a message is there (never waits).
     *
     * @throws EOFException when the target closed the connection and every message before it was read
     */
    public boolean pollMessage() throws IOException {
        if (arrivedCount == 0) {
            takeCompletions();
        }
        if (arrivedCount == 0) {
            if (ended) {
                throw new EOFException("the target closed the connection: " + describeEnd());
            }
            return false;
        }
        polled++; // only the thread running the step writes it
        return true;
    }

    /** Where the oldest unreleased message starts in {@link #memory()}. */
    public long messageOffset() {
        return (long) arrivedSlot[arrivedHead] * layout.receiveBytes();
    }

    /** The length of the oldest unreleased message. */
    public int messageLength() {
        return arrivedLength[arrivedHead];
    }

    /** Done with the oldest message: its receive buffer is posted again. */
    public void releaseMessage() throws IOException {
        int slot = arrivedSlot[arrivedHead];
        arrivedHead = (arrivedHead + 1) % layout.receives();
        arrivedCount--;
        postReceive(slot);
    }

    /** Sets how long a wait for a message (or a send buffer) lasts before {@link SocketTimeoutException}. */
    public void readTimeout(Duration timeout) {
        readTimeoutNanos = timeout.toNanos();
    }

    // ------------------------------------------------------------------ driven

    /**
     * Runs {@code step} on the connection's I/O thread, again each time messages may have arrived,
     * until it returns true; the caller's thread waits meanwhile. Only {@code step} uses the
     * connection until this returns; what it did is then visible to the caller.
     *
     * @throws SocketTimeoutException when nothing arrives within the read timeout while {@code step} waits
     * @throws IOException            what {@code step} threw, or the connection ended
     */
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

    /** Waits for a driven loop to end; fails when no message arrives within the read timeout. */
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
                throw new InterruptedIOException("interrupted while the " + protocol + " loop ran");
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

    // ------------------------------------------------------------------ completions

    /** Handles every completion there is, without waiting. */
    private void takeCompletions() throws IOException {
        int n;
        while ((n = cq.poll(wc, wc.length)) > 0) {
            for (int i = 0; i < n; i++) {
                completed(wc[i]);
            }
        }
        if (n < 0) {
            throw new IOException(protocol + " completion queue overflowed");
        }
    }

    /**
     * Polls the completions there are (waiting until {@code deadline} for one): a SEND frees its
     * buffer, a receive is queued for {@link #awaitMessage}. Returns false when the connection is
     * gone (a flushed request).
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
                throw new InterruptedIOException("interrupted while waiting for an " + protocol + " completion");
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
        return new SocketTimeoutException("no " + protocol + " completion within "
                + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos) + " ms");
    }

    private boolean completed(WorkCompletion c) throws IOException {
        if (c.status == WorkCompletionStatus.WR_FLUSH_ERR) {
            ended = true;
            return false;
        }
        if (c.status != WorkCompletionStatus.SUCCESS) {
            throw new IOException(protocol + " " + c.opcode + " failed with " + c.status + ": " + describeEnd());
        }
        if ((c.wrId & SEND_TAG) != 0) {
            freeSends[freeSendCount++] = (int) c.wrId;
        } else if (c.opcode == WorkCompletionOpcode.RECV) {
            int tail = (arrivedHead + arrivedCount) % layout.receives();
            arrivedSlot[tail] = (int) c.wrId;
            arrivedLength[tail] = c.byteLen;
            arrivedCount++;
        }
        return true;
    }

    private void postReceive(int slot) throws IOException {
        wr.reset();
        wr.wrId = slot;
        wr.addSge(region.address() + (long) slot * layout.receiveBytes(), layout.receiveBytes(), region.lkey());
        int e = qp.postRecv(wr);
        if (e != Errno.OK) {
            throw new IOException(protocol + " receive refused (" + e + "): " + describeEnd());
        }
    }

    // ------------------------------------------------------------------ end

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

    /** Why the connection ended, as far as known. */
    public String describeEnd() {
        if (!termination.isDone()) {
            return "the connection is in error";
        }
        byte[] terminate = termination.getNow(null);
        return "the target disconnected" + (terminate != null && terminate.length > 0
                ? " (" + TcpConnectionManager.terminationStatus(terminate) + ")" : "");
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
}
