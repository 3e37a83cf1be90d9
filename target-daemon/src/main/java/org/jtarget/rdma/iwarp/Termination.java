package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.socket.DuplexChannel;
import org.jtarget.rdma.WorkCompletionStatus;

import java.util.concurrent.TimeUnit;

/**
 * How one iWARP connection ends on an error (RFC 5040 5.3 and 7): the TERMINATE this side sends
 * and the half-close after it, and the TERMINATE the peer sent, whose control word becomes the
 * connection manager's DISCONNECTED data and the failed requester's completion status.
 */
final class Termination {

    private static final byte[] NONE = new byte[0];
    /** How long a connection ended by a TERMINATE waits for the peer to close it. */
    private static final long LINGER_SECONDS = 5;

    private final Channel channel;
    private final ByteBufAllocator alloc;
    private final FrameOutput output;
    /** A TERMINATE is on its way and the connection half-closes; no hard close meanwhile (event loop). */
    private boolean started;
    /** The control word of the TERMINATE the peer sent (4 bytes), or empty. */
    private volatile byte[] peerControl = NONE;

    Termination(Channel channel, ByteBufAllocator alloc, FrameOutput output) {
        this.channel = channel;
        this.alloc = alloc;
        this.output = output;
    }

    /** Marks the connection as terminating; false if it already was. */
    boolean start() {
        if (started) {
            return false;
        }
        started = true;
        return true;
    }

    boolean started() {
        return started;
    }

    /** Sends a TERMINATE (untagged queue 2) with {@code code} after what was written, then half-closes. */
    void send(TerminateCode code) {
        ByteBuf control = alloc.directBuffer(Iwarp.TERMINATE_CONTROL).writeInt(code.controlWord());
        output.sendUntagged(Iwarp.TERMINATE, true, 0, Iwarp.QUEUE_TERMINATE, 1, 0, control)
                .addListener(sent -> halfClose());
    }

    /**
     * Ends the connection after a TERMINATE by half-closing it, not closing it: the refused
     * message's payload may still be unread in our socket, and a close with unread data resets the
     * connection (RST), which can destroy the TERMINATE before the peer has read it. The peer
     * closes on the TERMINATE; until then the aborted decoder discards what still arrives. A peer
     * that does not close is cut off after a while.
     */
    private void halfClose() {
        if (!(channel instanceof DuplexChannel duplex) || !channel.isActive()) {
            channel.close();
            return;
        }
        channel.config().setAutoRead(true); // drain, even if a store access had paused reading
        duplex.shutdownOutput();
        channel.eventLoop().schedule(() -> {
            channel.close();
        }, LINGER_SECONDS, TimeUnit.SECONDS);
    }

    /** Records the peer's TERMINATE ({@code payload}, released) and returns its control word. */
    int received(ByteBuf payload) {
        int control = payload.readableBytes() >= Iwarp.TERMINATE_CONTROL ? payload.getInt(payload.readerIndex()) : 0;
        payload.release();
        peerControl = new byte[] {(byte) (control >>> 24), (byte) (control >>> 16), (byte) (control >>> 8),
            (byte) control};
        return control;
    }

    /** The peer's TERMINATE control word, or empty: the DISCONNECTED event's data. */
    byte[] peerControl() {
        return peerControl;
    }

    /** The work completion status a requester reports for a TERMINATE's reason. */
    static WorkCompletionStatus statusOf(int control) {
        int layer = control >>> 28;
        int type = control >>> 24 & 0xf;
        int code = control >>> 16 & 0xff;
        if (layer == TerminateCode.DDP_NO_BUFFER.layer && type == TerminateCode.DDP_NO_BUFFER.type) {
            return code == TerminateCode.DDP_NO_BUFFER.code ? WorkCompletionStatus.RNR_RETRY_EXC_ERR
                    : WorkCompletionStatus.REM_INV_REQ_ERR;
        }
        if (layer == 0 && type == 1 || layer == 1 && type == 1) {
            return WorkCompletionStatus.REM_ACCESS_ERR;
        }
        return WorkCompletionStatus.REM_OP_ERR;
    }
}
