package org.jtarget.rdma;

import org.jtarget.rdma.loopback.LoopbackDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jtarget.rdma.RdmaFixture.ALL;
import static org.jtarget.rdma.RdmaFixture.recv;
import static org.jtarget.rdma.RdmaFixture.send;

class QueuePairTest {

    private RdmaFixture f;
    private MemoryRegion mr;

    @BeforeEach
    void setUp() throws RdmaException {
        f = new RdmaFixture(new LoopbackDevice(), 4, 2);
        mr = f.register(4096, ALL);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    @Test
    void newQueuePairIsInResetAndRefusesPosts() {
        assertThat(f.a.state()).isEqualTo(QueuePairState.RESET);
        assertThat(f.a.postSend(send(1, mr, 0, 8))).isEqualTo(Errno.EINVAL);
        assertThat(f.a.postRecv(recv(1, mr, 0, 8))).isEqualTo(Errno.EINVAL);
    }

    @Test
    void receivesMayBePostedFromInitButSendsOnlyInRts() throws RdmaException {
        f.a.modify(QueuePairAttributes.to(QueuePairState.INIT).access(ALL));
        assertThat(f.a.postRecv(recv(1, mr, 0, 8))).isEqualTo(Errno.OK);
        assertThat(f.a.postSend(send(2, mr, 0, 8))).isEqualTo(Errno.EINVAL);
        f.a.modify(QueuePairAttributes.to(QueuePairState.RTR).destQpNum(f.b.qpNum()));
        assertThat(f.a.postSend(send(3, mr, 0, 8))).isEqualTo(Errno.EINVAL);
    }

    @Test
    void invalidTransitionsFailWithEinvalAndKeepTheState() throws RdmaException {
        assertThatThrownBy(() -> f.a.modify(QueuePairAttributes.to(QueuePairState.RTS)))
                .isInstanceOf(RdmaException.class).extracting(e -> ((RdmaException) e).errno()).isEqualTo(Errno.EINVAL);
        assertThat(f.a.state()).isEqualTo(QueuePairState.RESET);
        f.a.modify(QueuePairAttributes.to(QueuePairState.ERROR));
        assertThatThrownBy(() -> f.a.modify(QueuePairAttributes.to(QueuePairState.INIT))).isInstanceOf(RdmaException.class);
        f.a.modify(QueuePairAttributes.to(QueuePairState.RESET));
        assertThat(f.a.state()).isEqualTo(QueuePairState.RESET);
    }

    @Test
    void rtrNeedsAnExistingPeer() throws RdmaException {
        f.a.modify(QueuePairAttributes.to(QueuePairState.INIT));
        assertThatThrownBy(() -> f.a.modify(QueuePairAttributes.to(QueuePairState.RTR).destQpNum(999)))
                .isInstanceOf(RdmaException.class);
        assertThat(f.a.state()).isEqualTo(QueuePairState.INIT);
    }

    @Test
    void tooManyElementsIsEinvalAndAFullQueueIsEnomem() throws RdmaException {
        f.connect();
        WorkRequest wr = send(1, mr, 0, 8).addSge(mr.address(), 8, mr.lkey()).addSge(mr.address(), 8, mr.lkey());
        assertThat(f.a.postSend(wr)).isEqualTo(Errno.EINVAL);
        // no receives at b, rnr_retry 7: the first SEND stalls, the queue (depth 4) fills up
        for (int i = 0; i < 4; i++) {
            assertThat(f.a.postSend(send(i, mr, 0, 8))).isEqualTo(Errno.OK);
        }
        assertThat(f.a.postSend(send(9, mr, 0, 8))).isEqualTo(Errno.ENOMEM);
        assertThat(f.b.postRecv(recv(100, mr, 0, 64))).isEqualTo(Errno.OK);
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId).containsExactly(0L);
    }

    @Test
    void errorStateFlushesOutstandingAndNewRequests() throws RdmaException {
        f.connect();
        f.b.postRecv(recv(10, mr, 0, 64));
        f.b.postRecv(recv(11, mr, 0, 64));
        f.b.modify(QueuePairAttributes.to(QueuePairState.ERROR));
        assertThat(f.pollAll(f.cqB)).extracting(wc -> wc.wrId + ":" + wc.status)
                .containsExactly("10:WR_FLUSH_ERR", "11:WR_FLUSH_ERR");
        WorkRequest unsignaled = send(12, mr, 0, 8);
        unsignaled.sendFlags = 0;
        assertThat(f.b.postSend(unsignaled)).isEqualTo(Errno.OK);
        assertThat(f.b.postRecv(recv(13, mr, 0, 8))).isEqualTo(Errno.OK);
        assertThat(f.pollAll(f.cqB)).extracting(wc -> wc.wrId + ":" + wc.status)
                .containsExactly("12:WR_FLUSH_ERR", "13:WR_FLUSH_ERR");
    }

    @Test
    void aSendToAPeerInErrorFailsAndFlushesTheRest() throws RdmaException {
        f.connect();
        f.b.modify(QueuePairAttributes.to(QueuePairState.ERROR));
        f.a.postSend(send(1, mr, 0, 8));
        f.a.postSend(send(2, mr, 0, 8));
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId + ":" + wc.status)
                .containsExactly("1:RETRY_EXC_ERR", "2:WR_FLUSH_ERR");
        assertThat(f.a.state()).isEqualTo(QueuePairState.ERROR);
    }

    @Test
    void unsignaledRequestsCompleteSilently() throws RdmaException {
        f.connect();
        f.b.postRecv(recv(10, mr, 1024, 64));
        WorkRequest wr = send(1, mr, 0, 8);
        wr.sendFlags = 0;
        assertThat(f.a.postSend(wr)).isEqualTo(Errno.OK);
        assertThat(f.pollAll(f.cqA)).isEmpty();
        assertThat(f.pollAll(f.cqB)).extracting(wc -> wc.wrId).containsExactly(10L);
        assertThat(f.a.outstandingSends()).isZero();
    }

    @Test
    void resetDropsEverythingWithoutCompletionsAndReleasesRegions() throws RdmaException {
        f.connect();
        f.b.postRecv(recv(10, mr, 0, 64));
        assertThatThrownBy(() -> f.pd.deregister(mr)).isInstanceOf(RdmaException.class);
        f.b.modify(QueuePairAttributes.to(QueuePairState.RESET));
        assertThat(f.pollAll(f.cqB)).isEmpty();
        f.pd.deregister(mr);
        assertThat(mr.isDeregistered()).isTrue();
    }

    @Test
    void queuePairAccessFlagsAreSetAtInit() throws RdmaException {
        RdmaFixture.connect(f.a, f.b.qpNum(), ALL);
        RdmaFixture.connect(f.b, f.a.qpNum(), EnumSet.of(AccessFlag.REMOTE_READ));
        WorkRequest write = RdmaFixture.rdma(WorkRequestOpcode.RDMA_WRITE, 1, mr, 0, 8, mr.address() + 100, mr.rkey());
        f.a.postSend(write);
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        assertThat(f.b.state()).isEqualTo(QueuePairState.ERROR);
    }
}
