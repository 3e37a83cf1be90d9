package org.jtarget.rdma;

import org.jtarget.rdma.loopback.LoopbackDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.rdma.RdmaFixture.ALL;
import static org.jtarget.rdma.RdmaFixture.rdma;
import static org.jtarget.rdma.RdmaFixture.recv;
import static org.jtarget.rdma.RdmaFixture.send;

/**
 * The loopback device holds RDMA READ responses back (as a fabric's round trip does) until the test
 * runs them, so later operations can overtake a READ; FENCE and barriers must put order back.
 */
class QueuePairOrderingTest {

    private final ArrayDeque<Runnable> readResponses = new ArrayDeque<>();
    private RdmaFixture f;
    private MemoryRegion local;
    private MemoryRegion remote;

    @BeforeEach
    void setUp() throws RdmaException {
        LoopbackDevice device = new LoopbackDevice("lo", LoopbackDevice.DEFAULT_ATTRIBUTES,
                PinnedMemoryPolicy.ANY_NATIVE, readResponses::add);
        f = new RdmaFixture(device, 16, 4).connect();
        local = f.register(4096, ALL);
        remote = f.register(4096, ALL);
        remote.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 42);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private void runReadResponses() {
        Runnable r;
        while ((r = readResponses.poll()) != null) {
            r.run();
        }
    }

    private byte receivedByte() {
        return remote.segment().get(ValueLayout.JAVA_BYTE, 2048);
    }

    @Test
    void withoutFenceASendOvertakesAReadButCompletionsStayInOrder() {
        f.b.postRecv(recv(9, remote, 2048, 64));
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 1, local, 0, 1, remote.address(), remote.rkey()));
        f.a.postSend(send(2, local, 0, 1)); // sends the byte the READ has not placed yet
        assertThat(f.pollAll(f.cqB)).extracting(wc -> wc.wrId).containsExactly(9L);
        assertThat(receivedByte()).as("stale data went out").isZero();
        assertThat(f.pollAll(f.cqA)).as("RC completes in order: nothing before the READ").isEmpty();
        runReadResponses();
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId).containsExactly(1L, 2L);
    }

    @Test
    void fenceHoldsTheSendUntilTheReadHasLanded() {
        f.b.postRecv(recv(9, remote, 2048, 64));
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 1, local, 0, 1, remote.address(), remote.rkey()));
        WorkRequest fenced = send(2, local, 0, 1);
        fenced.sendFlags |= SendFlags.FENCE;
        f.a.postSend(fenced);
        assertThat(f.pollAll(f.cqB)).isEmpty();
        runReadResponses();
        assertThat(f.pollAll(f.cqB)).extracting(wc -> wc.wrId).containsExactly(9L);
        assertThat(receivedByte()).isEqualTo((byte) 42);
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId).containsExactly(1L, 2L);
    }

    @Test
    void fenceDoesNotWaitForWrites() {
        f.b.postRecv(recv(9, remote, 2048, 64));
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 1, local, 0, 8, remote.address() + 100, remote.rkey()));
        WorkRequest fenced = send(2, local, 0, 1);
        fenced.sendFlags |= SendFlags.FENCE;
        f.a.postSend(fenced);
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId).containsExactly(1L, 2L);
    }

    @Test
    void aBarrierWaitsForEveryPriorRequestAndHoldsLaterOnes() {
        f.b.postRecv(recv(9, remote, 2048, 64));
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 1, local, 0, 1, remote.address(), remote.rkey()));
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 2, local, 100, 8, remote.address() + 100, remote.rkey()));
        assertThat(f.a.postBarrier(3)).isEqualTo(Errno.OK);
        f.a.postSend(send(4, local, 0, 1));
        assertThat(f.pollAll(f.cqB)).as("the status SEND waits behind the barrier").isEmpty();
        runReadResponses();
        assertThat(receivedByte()).isEqualTo((byte) 42);
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId + ":" + wc.opcode)
                .containsExactly("1:RDMA_READ", "2:RDMA_WRITE", "3:BARRIER", "4:SEND");
    }

    @Test
    void aBarrierIsFlushedInError() throws RdmaException {
        f.a.modify(QueuePairAttributes.to(QueuePairState.ERROR));
        assertThat(f.a.postBarrier(3)).isEqualTo(Errno.OK);
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.WR_FLUSH_ERR);
    }

    @Test
    void aReadResponseAfterTheQueuePairFailedIsIgnored() throws RdmaException {
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 1, local, 0, 1, remote.address(), remote.rkey()));
        f.a.modify(QueuePairAttributes.to(QueuePairState.ERROR));
        runReadResponses();
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.status).containsExactly(WorkCompletionStatus.WR_FLUSH_ERR);
        assertThat(local.segment().get(ValueLayout.JAVA_BYTE, 0)).isZero();
    }
}
