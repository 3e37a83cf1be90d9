package org.jtarget.rdma.iwarp;

import io.netty.channel.EventLoopGroup;
import org.jtarget.buffer.BufferPool;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.CmListener;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A tcp device on two event loops with a listener on an ephemeral loopback port. */
final class TcpFixture implements AutoCloseable {

    final EventLoopGroup group = TcpConnectionManager.newEventLoopGroup(2);
    final TcpDevice device = new TcpDevice("tcp0", TcpDevice.DEFAULT_ATTRIBUTES, PinnedMemoryPolicy.ANY_NATIVE, group,
            new BufferPool(2).allocator());
    final TcpConnectionManager cm = new TcpConnectionManager(device);
    final ProtectionDomain pd = device.allocateProtectionDomain();
    final Arena arena = Arena.ofShared();
    final BlockingQueue<CmEvent> serverEvents = new LinkedBlockingQueue<>();
    final CmListener listener;

    TcpFixture() throws RdmaException {
        listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), serverEvents::add);
    }

    /** One connected pair: a = client, b = server. */
    final class Pair {
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final QueuePair a;
        final QueuePair b;
        final BlockingQueue<CmEvent> clientEvents = new LinkedBlockingQueue<>();
        CmId clientId;
        CmId serverId;

        Pair(int depth) throws Exception {
            cqA = device.createCompletionQueue(4096, null);
            cqB = device.createCompletionQueue(4096, null);
            a = device.createQueuePair(pd, new QueuePairInitAttributes(cqA, cqA, depth, depth, 4, 4));
            b = device.createQueuePair(pd, new QueuePairInitAttributes(cqB, cqB, depth, depth, 4, 4));
            cm.connect(listener.localAddress(), a, new byte[] {1}, clientEvents::add);
            CmEvent req = next(serverEvents, CmEventType.CONNECT_REQUEST);
            req.id().accept(b, new byte[] {2});
            serverId = req.id();
            next(serverEvents, CmEventType.ESTABLISHED);
            clientId = next(clientEvents, CmEventType.ESTABLISHED).id();
        }
    }

    static CmEvent next(BlockingQueue<CmEvent> q, CmEventType expected) throws InterruptedException {
        CmEvent e = q.poll(20, TimeUnit.SECONDS);
        if (e == null || e.type() != expected) {
            throw new AssertionError("expected " + expected + ", got " + (e == null ? "nothing" : e.type()));
        }
        return e;
    }

    MemoryRegion register(long size, Set<org.jtarget.rdma.AccessFlag> access) throws RdmaException {
        return pd.registerMemoryRegion(arena.allocate(size, 4096), access);
    }

    /** Waits (bounded) for {@code n} completions. */
    static List<WorkCompletion> await(CompletionQueue cq, int n) throws InterruptedException {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] wcs = new WorkCompletion[16];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (out.size() < n) {
            int k = cq.poll(wcs, Math.min(wcs.length, n - out.size()));
            for (int i = 0; i < k; i++) {
                WorkCompletion c = new WorkCompletion();
                c.wrId = wcs[i].wrId;
                c.status = wcs[i].status;
                c.opcode = wcs[i].opcode;
                c.byteLen = wcs[i].byteLen;
                c.immData = wcs[i].immData;
                c.wcFlags = wcs[i].wcFlags;
                out.add(c);
            }
            if (k == 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + out.size() + " of " + n + " completions: " + out);
                }
                Thread.sleep(1);
            }
        }
        return out;
    }

    @Override
    public void close() {
        cm.close();
        device.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        arena.close();
    }
}
