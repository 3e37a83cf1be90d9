package org.jtarget.rdma.loopback;

import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePairAttributes;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.RdmaFixture;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionOpcode;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.rdma.RdmaFixture.ALL;
import static org.jtarget.rdma.RdmaFixture.rdma;
import static org.jtarget.rdma.RdmaFixture.recv;
import static org.jtarget.rdma.RdmaFixture.send;

class LoopbackQueuePairTest {

    private RdmaFixture f;
    private MemoryRegion src;
    private MemoryRegion dst;

    @BeforeEach
    void setUp() throws RdmaException {
        f = new RdmaFixture(new LoopbackDevice(), 16, 4).connect();
        src = f.register(8192, ALL);
        dst = f.register(8192, ALL);
        RdmaFixture.fill(src.segment(), 7);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private static boolean same(MemorySegment a, long aOff, MemorySegment b, long bOff, long len) {
        return a.asSlice(aOff, len).mismatch(b.asSlice(bOff, len)) == -1;
    }

    @Test
    void sendScattersIntoTheReceiveElements() {
        WorkRequest r = recv(5, dst, 0, 100).addSge(dst.address() + 1000, 400, dst.lkey());
        f.b.postRecv(r);
        WorkRequest s = send(1, src, 0, 300).addSge(src.address() + 2000, 100, src.lkey());
        s.opcode = WorkRequestOpcode.SEND_WITH_IMM;
        s.immData = 0x1234;
        f.a.postSend(s);
        WorkCompletion sc = f.pollOne(f.cqA);
        assertThat(sc.status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(sc.opcode).isEqualTo(WorkCompletionOpcode.SEND);
        WorkCompletion rc = f.pollOne(f.cqB);
        assertThat(rc.wrId).isEqualTo(5);
        assertThat(rc.byteLen).isEqualTo(400);
        assertThat(rc.wcFlags & WorkCompletion.WITH_IMM).isNotZero();
        assertThat(rc.immData).isEqualTo(0x1234);
        assertThat(same(src.segment(), 0, dst.segment(), 0, 100)).isTrue();
        assertThat(same(src.segment(), 100, dst.segment(), 1000, 200)).isTrue();
        assertThat(same(src.segment(), 2000, dst.segment(), 1200, 100)).isTrue();
    }

    @Test
    void rdmaWriteAndReadMoveBytesOneSided() {
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 4096, dst.address() + 4096, dst.rkey()));
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 2, src, 4096, 4096, dst.address() + 4096, dst.rkey()));
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId + ":" + wc.opcode + ":" + wc.status)
                .containsExactly("1:RDMA_WRITE:SUCCESS", "2:RDMA_READ:SUCCESS");
        assertThat(f.pollAll(f.cqB)).isEmpty();
        assertThat(same(src.segment(), 0, dst.segment(), 4096, 4096)).isTrue();
        assertThat(same(src.segment(), 0, src.segment(), 4096, 4096)).isTrue();
    }

    @Test
    void writeWithImmediateConsumesAReceive() {
        f.b.postRecv(recv(9, dst, 0, 0));
        WorkRequest w = rdma(WorkRequestOpcode.RDMA_WRITE_WITH_IMM, 1, src, 0, 512, dst.address() + 512, dst.rkey());
        w.immData = 77;
        f.a.postSend(w);
        WorkCompletion rc = f.pollOne(f.cqB);
        assertThat(rc.opcode).isEqualTo(WorkCompletionOpcode.RECV_RDMA_WITH_IMM);
        assertThat(rc.immData).isEqualTo(77);
        assertThat(rc.byteLen).isEqualTo(512);
        assertThat(same(src.segment(), 0, dst.segment(), 512, 512)).isTrue();
    }

    @Test
    void sendWithInvalidateRevokesTheRkey() {
        f.b.postRecv(recv(9, dst, 0, 64));
        WorkRequest s = send(1, src, 0, 16);
        s.opcode = WorkRequestOpcode.SEND_WITH_INV;
        s.invalidateRkey = dst.rkey();
        f.a.postSend(s);
        WorkCompletion rc = f.pollOne(f.cqB);
        assertThat(rc.wcFlags & WorkCompletion.WITH_INV).isNotZero();
        assertThat(rc.invalidatedRkey).isEqualTo(dst.rkey());
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 2, src, 0, 16, dst.address(), dst.rkey()));
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.status)
                .containsExactly(WorkCompletionStatus.SUCCESS, WorkCompletionStatus.REM_ACCESS_ERR);
    }

    // ---- access violations: each completes with an error, moves the QP to ERROR, touches nothing ----

    private void expectRemoteAccessError(WorkRequest wr) {
        long before = checksum(dst.segment());
        f.a.postSend(wr);
        f.a.postSend(send(99, src, 0, 8));
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.status)
                .containsExactly(WorkCompletionStatus.REM_ACCESS_ERR, WorkCompletionStatus.WR_FLUSH_ERR);
        assertThat(f.a.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(f.b.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(checksum(dst.segment())).isEqualTo(before);
    }

    private static long checksum(MemorySegment s) {
        long h = 0;
        for (long i = 0; i < s.byteSize(); i++) {
            h = h * 31 + s.get(ValueLayout.JAVA_BYTE, i);
        }
        return h;
    }

    @Test
    void writePastTheEndOfTheRegionIsARemoteAccessError() {
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 16, dst.address() + 8190, dst.rkey()));
    }

    @Test
    void writeBeforeTheRegionIsARemoteAccessError() {
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 16, dst.address() - 8, dst.rkey()));
    }

    @Test
    void readPastTheEndIsARemoteAccessError() {
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_READ, 1, src, 0, 16, dst.address() + 8180, dst.rkey()));
    }

    @Test
    void writeWithoutRemoteWriteIsARemoteAccessError() throws RdmaException {
        MemoryRegion ro = f.pd.registerMemoryRegion(dst.segment(), EnumSet.of(AccessFlag.REMOTE_READ));
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 16, ro.address(), ro.rkey()));
    }

    @Test
    void readWithoutRemoteReadIsARemoteAccessError() throws RdmaException {
        MemoryRegion wo = f.pd.registerMemoryRegion(dst.segment(), EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_READ, 1, src, 0, 16, wo.address(), wo.rkey()));
    }

    @Test
    void anLkeyIsNotAnRkey() {
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 16, dst.address(), dst.lkey()));
    }

    @Test
    void anUnknownRkeyIsARemoteAccessError() {
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 16, dst.address(), 0x7fff_ff01));
    }

    @Test
    void anRkeyOfAnotherProtectionDomainIsARemoteAccessError() throws RdmaException {
        ProtectionDomain other = f.device.allocateProtectionDomain();
        MemoryRegion foreign = other.registerMemoryRegion(dst.segment(), ALL);
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 16, foreign.address(), foreign.rkey()));
    }

    @Test
    void aDeregisteredRkeyIsARemoteAccessError() throws RdmaException {
        MemoryRegion gone = f.pd.registerMemoryRegion(dst.segment(), ALL);
        f.pd.deregister(gone);
        expectRemoteAccessError(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 16, gone.address(), gone.rkey()));
    }

    private void expectLocalProtectionError(WorkRequest wr) {
        f.a.postSend(wr);
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.LOC_PROT_ERR);
        assertThat(f.a.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(f.b.state()).isEqualTo(QueuePairState.RTS);
    }

    @Test
    void aBadLkeyIsALocalProtectionError() {
        WorkRequest wr = send(1, src, 0, 16);
        wr.sgList[0].set(src.address(), 16, 0x12345600);
        expectLocalProtectionError(wr);
    }

    @Test
    void aLocalElementOutsideItsRegionIsALocalProtectionError() {
        expectLocalProtectionError(send(1, src, 8000, 200));
    }

    @Test
    void readIntoARegionWithoutLocalWriteIsALocalProtectionError() throws RdmaException {
        MemoryRegion ro = f.pd.registerMemoryRegion(src.segment(), EnumSet.of(AccessFlag.REMOTE_READ));
        expectLocalProtectionError(rdma(WorkRequestOpcode.RDMA_READ, 1, ro, 0, 16, dst.address(), dst.rkey()));
    }

    @Test
    void aReceiveTooSmallIsALocalLengthErrorAtTheResponder() {
        f.b.postRecv(recv(9, dst, 0, 10));
        f.a.postSend(send(1, src, 0, 11));
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_INV_REQ_ERR);
        assertThat(f.pollOne(f.cqB).status).isEqualTo(WorkCompletionStatus.LOC_LEN_ERR);
        assertThat(f.a.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(f.b.state()).isEqualTo(QueuePairState.ERROR);
    }

    @Test
    void noReceiveWithoutRnrRetriesIsRnrRetryExceeded() throws RdmaException {
        f.a.modify(QueuePairAttributes.to(QueuePairState.RTS).rnrRetry(0));
        f.a.postSend(send(1, src, 0, 8));
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.RNR_RETRY_EXC_ERR);
    }

    @Test
    void withInfiniteRnrRetriesASendWaitsForTheReceiveAndLaterRequestsWaitBehindIt() {
        f.a.postSend(send(1, src, 0, 8));
        f.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 2, src, 0, 8, dst.address() + 100, dst.rkey()));
        assertThat(f.pollAll(f.cqA)).isEmpty();
        assertThat(dst.segment().get(ValueLayout.JAVA_BYTE, 100)).isZero();
        f.b.postRecv(recv(9, dst, 0, 64));
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId + ":" + wc.status)
                .containsExactly("1:SUCCESS", "2:SUCCESS");
        assertThat(same(src.segment(), 0, dst.segment(), 100, 8)).isTrue();
    }

    @Test
    void aRegionReferencedByAPostedReceiveIsBusy() {
        f.b.postRecv(recv(9, dst, 0, 64));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.pd.deregister(dst)).isInstanceOf(RdmaException.class);
    }
}
