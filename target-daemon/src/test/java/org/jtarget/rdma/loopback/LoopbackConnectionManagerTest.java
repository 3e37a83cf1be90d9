package org.jtarget.rdma.loopback;

import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.RdmaFixture;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmListener;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LoopbackConnectionManagerTest {

    private static CmEvent next(BlockingQueue<CmEvent> q) throws InterruptedException {
        CmEvent e = q.poll(10, TimeUnit.SECONDS);
        assertThat(e).as("event").isNotNull();
        return e;
    }

    @Test
    void connectAcceptDisconnectCarriesPrivateDataAndDrivesTheQueuePairs() throws Exception {
        try (RdmaFixture f = new RdmaFixture(new LoopbackDevice(), 8, 2);
             LoopbackConnectionManager cm = new LoopbackConnectionManager((LoopbackDevice) f.device)) {
            BlockingQueue<CmEvent> server = new LinkedBlockingQueue<>();
            BlockingQueue<CmEvent> client = new LinkedBlockingQueue<>();
            InetSocketAddress addr = new InetSocketAddress("127.0.0.1", 4420);
            CmListener listener = cm.listen(addr, server::add);
            cm.connect(addr, f.a, new byte[] {1, 2}, client::add);
            CmEvent req = next(server);
            assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
            assertThat(req.privateData()).containsExactly(1, 2);
            req.id().accept(f.b, new byte[] {3});
            CmEvent est = next(client);
            assertThat(est.type()).isEqualTo(CmEventType.ESTABLISHED);
            assertThat(est.privateData()).containsExactly(3);
            assertThat(next(server).type()).isEqualTo(CmEventType.ESTABLISHED);
            assertThat(f.a.state()).isEqualTo(QueuePairState.RTS);
            assertThat(f.b.state()).isEqualTo(QueuePairState.RTS);
            est.id().disconnect();
            assertThat(next(client).type()).isEqualTo(CmEventType.DISCONNECTED);
            assertThat(next(server).type()).isEqualTo(CmEventType.DISCONNECTED);
            assertThat(f.b.state()).isEqualTo(QueuePairState.ERROR);
            listener.close();
        }
    }

    @Test
    void rejectAndUnreachable() throws Exception {
        try (RdmaFixture f = new RdmaFixture(new LoopbackDevice(), 8, 2);
             LoopbackConnectionManager cm = new LoopbackConnectionManager((LoopbackDevice) f.device)) {
            BlockingQueue<CmEvent> client = new LinkedBlockingQueue<>();
            InetSocketAddress addr = new InetSocketAddress("127.0.0.1", 4421);
            cm.connect(addr, f.a, null, client::add);
            assertThat(next(client).type()).isEqualTo(CmEventType.UNREACHABLE);
            cm.listen(addr, e -> e.id().reject(new byte[] {9}));
            QueuePair qp = f.a;
            cm.connect(addr, qp, null, client::add);
            CmEvent rej = next(client);
            assertThat(rej.type()).isEqualTo(CmEventType.REJECTED);
            assertThat(rej.privateData()).containsExactly(9);
        }
    }

    @Test
    void privateDataIsLimited() {
        try (RdmaFixture f = new RdmaFixture(new LoopbackDevice(), 8, 2);
             LoopbackConnectionManager cm = new LoopbackConnectionManager((LoopbackDevice) f.device)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> cm.connect(new InetSocketAddress(1), f.a, new byte[197], e -> { }))
                    .isInstanceOf(RdmaException.class);
        } catch (RdmaException e) {
            throw new AssertionError(e);
        }
    }
}
