package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ImmediateEventExecutor;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.spi.IscsiEngine;
import org.jtarget.fabric.iscsi.spi.IscsiTransport;
import org.jtarget.fabric.iscsi.spi.TaskTransfer;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A transport without Netty channels, moving data the way iSER does (RFC 7145): whole PDUs in
 * messages, solicited Data-Out fetched from the initiator's buffer (RDMA READ), Data-In written
 * into it (RDMA WRITE) with the status in a separate SCSI Response. Everything runs on the
 * calling thread.
 */
final class MessageTransport implements IscsiTransport {

    /** What the initiator registered for the data phase: read from by WRITEs, written by READs. */
    final ByteBuf initiatorBuffer;
    final List<IscsiPdu> sent = new ArrayList<>();
    int flushes;
    int dataOutRequests;
    boolean closed;
    boolean reading = true;
    NegotiatedParameters negotiated;
    IscsiEngine engine;
    /** What one PDU may carry (an iSER send buffer's data room). */
    int maxSendDataSegmentLength = Integer.MAX_VALUE;

    MessageTransport(ByteBuf initiatorBuffer) {
        this.initiatorBuffer = initiatorBuffer;
    }

    @Override public ByteBufAllocator alloc() { return UnpooledByteBufAllocator.DEFAULT; }
    @Override public EventExecutor executor() { return ImmediateEventExecutor.INSTANCE; }
    @Override public boolean isActive() { return !closed; }
    @Override public SocketAddress localAddress() { return new InetSocketAddress("127.0.0.1", 3260); }
    @Override public SocketAddress remoteAddress() { return new InetSocketAddress("127.0.0.1", 40000); }
    @Override public void send(IscsiPdu pdu) { sent.add(pdu); }
    @Override public void flush() { flushes++; }
    @Override public void close() { closed = true; }
    @Override public void reading(boolean on) { reading = on; }
    @Override public boolean isWritable() { return true; }
    @Override public void loginComplete(NegotiatedParameters parameters) { negotiated = parameters; }
    @Override public boolean rdmaExtensions() { return true; }
    @Override public int maxSendDataSegmentLength() { return maxSendDataSegmentLength; }

    @Override
    public void sendAndFlush(IscsiPdu pdu) {
        send(pdu);
        flush();
    }

    @Override
    public void sendAndClose(IscsiPdu pdu) {
        sendAndFlush(pdu);
        close();
    }

    /** One RDMA READ of everything still wanted, completed at once. */
    @Override
    public void requestDataOut(TaskTransfer task) {
        int offset = task.requested();
        int length = task.wanted() - offset;
        if (length <= 0) {
            return;
        }
        dataOutRequests++;
        task.requested(task.wanted());
        task.outstanding(task.outstanding() + 1);
        engine.dataOutFetched(task, initiatorBuffer.retainedSlice(offset, length));
    }

    /** RDMA WRITE into the initiator's buffer; the status never travels with it. */
    @Override
    public boolean sendDataIn(TaskTransfer task, boolean statusAllowed) {
        ByteBuf data = task.command().dataIn();
        int n = Math.min(task.command().expectedDataTransferLength(), data.readableBytes());
        initiatorBuffer.setBytes(0, data, data.readerIndex(), n);
        return false;
    }

    void release() {
        for (IscsiPdu p : sent) {
            p.release();
        }
        sent.clear();
    }
}
