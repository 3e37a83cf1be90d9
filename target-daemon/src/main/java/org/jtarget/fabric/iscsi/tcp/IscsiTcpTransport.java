package org.jtarget.fabric.iscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.EventExecutor;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.spi.IscsiEngine;
import org.jtarget.fabric.iscsi.spi.IscsiTransport;
import org.jtarget.fabric.iscsi.spi.TaskTransfer;
import org.jtarget.scsi.spi.ScsiCommand;

import java.net.SocketAddress;
import java.util.function.Function;

/**
 * iSCSI over TCP (RFC 7143): the last handler of a connection's pipeline
 * ([idle →] framer → encoder → this), and the {@link IscsiTransport} of the connection's engine.
 * It turns channel events into {@link IscsiEngine} calls, writes PDUs to the channel, and moves
 * task data the TCP way: R2T PDUs ask for solicited Data-Out (RFC 7143 10.8), Data-In PDUs
 * carry read data split at the initiator's MaxRecvDataSegmentLength and MaxBurstLength (10.7).
 *
 * <p>Writes may come from the session's loop while the channel lives on another: Netty hands
 * them over to the channel's loop.
 */
public final class IscsiTcpTransport extends ChannelDuplexHandler implements IscsiTransport {

    private final IscsiEngine engine;
    private ChannelHandlerContext ctx;

    /** @param engineFactory makes the connection's engine over this transport */
    public IscsiTcpTransport(Function<IscsiTransport, ? extends IscsiEngine> engineFactory) {
        this.engine = engineFactory.apply(this);
    }

    /** The engine over this transport. */
    public IscsiEngine engine() {
        return engine;
    }

    // ------------------------------------------------------------------ channel events → engine

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        engine.transportAttached();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        engine.transportActive();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        engine.transportInactive();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        engine.writabilityChanged(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        engine.failed(cause);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            engine.idle(); // the engine pings only in the full feature phase
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        engine.received(msg);
    }

    // ------------------------------------------------------------------ IscsiTransport: the connection

    @Override
    public ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    @Override
    public EventExecutor executor() {
        return ctx.executor();
    }

    @Override
    public boolean isActive() {
        return ctx.channel().isActive();
    }

    @Override
    public SocketAddress localAddress() {
        return ctx.channel().localAddress();
    }

    @Override
    public SocketAddress remoteAddress() {
        return ctx.channel().remoteAddress();
    }

    @Override
    public void send(IscsiPdu pdu) {
        ctx.write(pdu, ctx.voidPromise());
    }

    @Override
    public void sendAndFlush(IscsiPdu pdu) {
        ctx.writeAndFlush(pdu, ctx.voidPromise());
    }

    @Override
    public void flush() {
        ctx.flush();
    }

    @Override
    public void sendAndClose(IscsiPdu pdu) {
        ctx.writeAndFlush(pdu).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void close() {
        ctx.close();
    }

    @Override
    public void reading(boolean on) {
        ctx.channel().config().setAutoRead(on);
    }

    @Override
    public boolean isWritable() {
        return ctx.channel().isWritable();
    }

    @Override
    public void loginComplete(NegotiatedParameters p) {
        IscsiPduEncoder encoder = ctx.pipeline().get(IscsiPduEncoder.class);
        if (encoder != null) {
            encoder.configure(p.headerDigest(), p.dataDigest());
        }
        IscsiPduFramer framer = ctx.pipeline().get(IscsiPduFramer.class);
        if (framer != null) {
            framer.configure(p.headerDigest(), p.dataDigest(), p.targetMaxRecvDataSegmentLength());
        }
    }

    @Override
    public boolean rdmaExtensions() {
        return false;
    }

    // ------------------------------------------------------------------ IscsiTransport: data movement

    /** R2Ts while MaxOutstandingR2T allows, each for up to MaxBurstLength bytes (RFC 7143 10.8). */
    @Override
    public void requestDataOut(TaskTransfer task) {
        NegotiatedParameters params = engine.parameters();
        boolean sent = false;
        while (task.outstanding() < params.maxOutstandingR2T() && task.requested() < task.wanted()) {
            int len = Math.min(params.maxBurstLength(), task.wanted() - task.requested());
            sendR2t(task, task.requested(), len);
            task.requested(task.requested() + len);
            task.outstanding(task.outstanding() + 1);
            sent = true;
        }
        if (sent) {
            flush();
        }
    }

    private void sendR2t(TaskTransfer task, int offset, int length) {
        if (task.transferTag() == 0) {
            task.transferTag(engine.nextTargetTransferTag());
        }
        IscsiPdu r2t = engine.targetPdu(Opcode.R2T, Unpooled.EMPTY_BUFFER, false);
        r2t.finalFlag(true);
        r2t.lunField(task.lunField());
        r2t.initiatorTaskTag(task.itt());
        r2t.targetTransferTag(task.transferTag());
        r2t.word36(task.nextPduSn()); // R2TSN
        r2t.bufferOffset(offset);
        r2t.word44(length); // Desired Data Transfer Length
        send(r2t);
    }

    /**
     * Data-In PDUs of up to the initiator's MaxRecvDataSegmentLength, F ending each
     * MaxBurstLength sequence, the status (S) in the last one when allowed (RFC 7143 11.7).
     */
    @Override
    public boolean sendDataIn(TaskTransfer task, boolean statusAllowed) {
        ScsiCommand cmd = task.command();
        ByteBuf dataIn = cmd.dataIn();
        int total = dataIn.readableBytes();
        int edtl = cmd.expectedDataTransferLength();
        int n = Math.min(edtl, total);
        NegotiatedParameters params = engine.parameters();
        int mrdsl = params.initiatorMaxRecvDataSegmentLength();
        int maxBurst = params.maxBurstLength();
        int base = dataIn.readerIndex();
        for (int off = 0; off < n; ) {
            int burstEnd = Math.min(n, (off / maxBurst + 1) * maxBurst);
            int len = Math.min(mrdsl, burstEnd - off);
            boolean status = statusAllowed && off + len == n;
            if (status) {
                task.statusSent();
            }
            IscsiPdu pdu = engine.targetPdu(Opcode.SCSI_DATA_IN, dataIn.retainedSlice(base + off, len), status);
            pdu.flags((off + len == burstEnd ? IscsiPdu.FINAL_BIT : 0)
                    | (status ? IscsiPdu.STATUS_BIT | IscsiPdu.residualFlags(edtl, total) : 0));
            pdu.initiatorTaskTag(task.itt());
            pdu.targetTransferTag(IscsiPdu.RESERVED_TAG);
            pdu.dataSn(task.nextPduSn());
            pdu.bufferOffset(off);
            if (status) {
                pdu.byte3(cmd.status());
                pdu.residualCount(Math.abs(total - edtl));
            } else {
                pdu.statSn(0); // RFC 7143 11.7.4: StatSN is reserved unless S is set (jSCSI checks it is 0)
            }
            send(pdu);
            off += len;
        }
        if (statusAllowed) {
            flush();
        }
        return statusAllowed;
    }
}
