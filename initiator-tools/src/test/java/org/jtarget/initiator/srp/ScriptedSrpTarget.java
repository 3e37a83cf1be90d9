package org.jtarget.initiator.srp;

import io.netty.channel.EventLoopGroup;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jtarget.buffer.BufferPool;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionOpcode;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.cm.QueuePairBringUp;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;

/**
 * An SRP target port that the test scripts IU by IU, over the tcp provider on 127.0.0.1: the
 * connect request is answered with what {@code answer} makes of its private data (accept private
 * data, or null to reject with {@link #rejectWith}); then the test takes each IU the initiator
 * SENDs ({@link #nextIu}) and SENDs whatever bytes it likes ({@link #send}), so that the
 * initiator's handling of credits, target requests and malformed IUs can be seen. One channel.
 */
final class ScriptedSrpTarget implements AutoCloseable {

    private static final int RECEIVES = 8;
    private static final int BUFFER = 16 << 10;

    private final EventLoopGroup group = TcpConnectionManager.newEventLoopGroup(1);
    private final BufferPool pool = new BufferPool(1);
    private final TcpDevice device = new TcpDevice("srp-script", TcpDevice.DEFAULT_ATTRIBUTES,
            PinnedMemoryPolicy.ANY_NATIVE, group, pool.allocator());
    private final TcpConnectionManager cm = new TcpConnectionManager(device);
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory = arena.allocate((long) (RECEIVES + 1) * BUFFER, 4096);
    private final MemoryRegion region;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final WorkRequest wr = new WorkRequest(1);
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private final BlockingQueue<byte[]> logins = new LinkedBlockingQueue<>();
    private final Function<byte[], byte[]> answer;
    private final CmListener listener;
    private volatile byte[] rejectData = new byte[0];
    private volatile CmId id;

    /** @param answer the accept's private data for a login request, or null to reject it */
    ScriptedSrpTarget(Function<byte[], byte[]> answer) throws Exception {
        this.answer = answer;
        region = pd.registerMemoryRegion(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
        cq = device.createCompletionQueue(64, null);
        qp = device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, 16, RECEIVES, 1, 1));
        QueuePairBringUp.toInit(qp);
        for (int i = 0; i < RECEIVES; i++) {
            postReceive(i);
        }
        listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), this::onEvent);
    }

    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** What a rejected login gets as the reject's private data. */
    void rejectWith(byte[] privateData) {
        rejectData = privateData;
    }

    /** The private data of the last connect request. */
    byte[] loginRequest() throws InterruptedException {
        return logins.poll(10, TimeUnit.SECONDS);
    }

    private void onEvent(CmEvent e) {
        if (e.type() != org.jtarget.rdma.cm.CmEventType.CONNECT_REQUEST) {
            return;
        }
        logins.add(e.privateData());
        byte[] accept = answer.apply(e.privateData());
        if (accept == null) {
            e.id().reject(rejectData);
            return;
        }
        try {
            id = e.id();
            e.id().accept(qp, accept);
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** The next IU the initiator SENT (a copy), waiting up to 10 s. */
    ByteBuffer nextIu() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc, 1) == 0) {
                Thread.sleep(1);
                continue;
            }
            if (wc[0].status != WorkCompletionStatus.SUCCESS) {
                throw new IllegalStateException("completion " + wc[0].status);
            }
            if (wc[0].opcode == WorkCompletionOpcode.RECV) {
                int slot = (int) wc[0].wrId;
                byte[] iu = memory.asSlice((long) slot * BUFFER, wc[0].byteLen).toArray(ValueLayout.JAVA_BYTE);
                postReceive(slot);
                return ByteBuffer.wrap(iu).order(ByteOrder.BIG_ENDIAN);
            }
        }
        throw new IllegalStateException("no IU within 10 s");
    }

    /** SENDs {@code iu} as it is. */
    void send(byte[] iu) {
        long at = (long) RECEIVES * BUFFER;
        MemorySegment.copy(iu, 0, memory, ValueLayout.JAVA_BYTE, at, iu.length);
        wr.reset();
        wr.wrId = 1_000;
        wr.opcode = WorkRequestOpcode.SEND;
        wr.addSge(region.address() + at, iu.length, region.lkey());
        if (qp.postSend(wr) != Errno.OK) {
            throw new IllegalStateException("SEND refused");
        }
    }

    private void postReceive(int slot) {
        wr.reset();
        wr.wrId = slot;
        wr.addSge(region.address() + (long) slot * BUFFER, BUFFER, region.lkey());
        if (qp.postRecv(wr) != Errno.OK) {
            throw new IllegalStateException("receive refused");
        }
    }

    @Override
    public void close() {
        if (id != null) {
            id.disconnect();
        }
        cm.close();
        device.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        arena.close();
        pool.close();
    }
}
