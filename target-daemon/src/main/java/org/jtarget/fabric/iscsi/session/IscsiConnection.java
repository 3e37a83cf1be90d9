package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.login.LoginContext;
import org.jtarget.fabric.iscsi.login.LoginOutcome;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.PduDecodeError;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.jtarget.fabric.iscsi.spi.IscsiEngine;
import org.jtarget.fabric.iscsi.spi.IscsiTransport;
import org.jtarget.fabric.iscsi.spi.TaskTransfer;
import org.jtarget.scsi.lun.TransferCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;

/**
 * The iSCSI protocol engine of one connection (RFC 7143 4.4), over any {@link IscsiTransport}:
 * the login phase through its {@link LoginPhase}, then the full feature phase: CmdSN ordering,
 * NOP ping, Text, Logout ({@link LogoutRequests}), task management and SCSI commands through its
 * {@link TaskSequencer}.
 *
 * <p>Threading: during login everything runs on the transport's loop. From the full feature
 * phase on, all state is owned by the session's loop ({@link IscsiSession#loop()}); when this
 * connection's transport lives on another loop each message is handed over (see {@link IscsiSession}).
 */
public final class IscsiConnection implements IscsiEngine {

    private static final Logger LOG = LoggerFactory.getLogger(IscsiConnection.class);

    private final IscsiTransport transport;
    private final LoginPhase login;
    private final TransferCounters portalCounters;
    private volatile IscsiSession session;
    private NegotiatedParameters params;
    private TaskSequencer tasks;
    private TextExchange text;
    private LogoutRequests logout;
    private int cid;
    private int statSn;
    private int nextTtt = 1;
    private int pingTtt = IscsiPdu.RESERVED_TAG;
    private boolean closed;
    private boolean lostHandled;
    private TextCodec textCodec = TextCodec.DEFAULT;

    /**
     * @param transport          the transport under this connection
     * @param registry           the fabric's live sessions (TSIH allocation, reinstatement)
     * @param portal             the portal this connection arrived on
     * @param targets            the targets served through that portal
     * @param loginSettings      the target's negotiation limits and the command window
     * @param connectionSettings login timeout and NOP-In interval
     */
    public IscsiConnection(IscsiTransport transport, SessionRegistry registry, IscsiPortalDefinition portal,
                           Collection<IscsiTargetDefinition> targets, LoginSettings loginSettings,
                           ConnectionSettings connectionSettings) {
        this.transport = transport;
        this.portalCounters = registry.portalTraffic(portal).counters();
        this.login = new LoginPhase(this, registry, portal, targets, loginSettings, connectionSettings);
    }

    // ------------------------------------------------------------------ transport events

    @Override
    public void transportAttached() {
        login.attached();
    }

    @Override
    public void transportActive() {
        login.active(session == null);
    }

    @Override
    public void transportInactive() {
        login.cancelTimer();
        IscsiSession s = session;
        if (s == null) {
            closed = true;
        } else {
            onSessionLoop(s, this::connectionLost);
        }
    }

    @Override
    public void writabilityChanged(boolean writable) {
        transport.reading(writable); // DESIGN 4.4: stop reading while the peer does not drain our output
    }

    @Override
    public void failed(Throwable cause) {
        if (!closed) {
            LOG.warn("connection {}: closing after error", transport.remoteAddress(), cause);
        }
        closed = true;
        transport.close();
    }

    @Override
    public void idle() {
        IscsiSession s = session;
        if (s != null) {
            onSessionLoop(s, this::ping);
        }
    }

    static void onSessionLoop(IscsiSession s, Runnable r) {
        if (s.loop().inEventLoop()) {
            r.run();
        } else {
            s.loop().execute(r);
        }
    }

    /** Closes the connection; tasks are aborted when it is gone. Any thread. */
    void closeNow() {
        closed = true;
        transport.close();
    }

    private void connectionLost() {
        if (lostHandled) {
            return;
        }
        lostHandled = true;
        closed = true;
        logout.release();
        text.release();
        IscsiSession s = session;
        for (IscsiSession.QueuedCommand q : s.window().removeMatching(q -> q.connection() == this)) {
            q.pdu().release();
        }
        tasks.abortAll();
        s.removeConnection(this);
        deliverQueued();
    }

    // ------------------------------------------------------------------ receive

    @Override
    public void received(Object msg) {
        IscsiSession s = session;
        if (s == null) {
            login.received(msg);
        } else if (s.loop().inEventLoop()) {
            fullFeature(msg);
        } else {
            s.loop().execute(() -> fullFeature(msg));
        }
    }

    /**
     * Puts this connection in the full feature phase of a session (creating the session when
     * {@code outcome.tsih()} is 0). Used after a successful login, and by tests that skip login.
     */
    void startFullFeature(LoginOutcome outcome) {
        login.startFullFeature(outcome);
    }

    /** The login is over: this connection joins {@code s} (on the session loop). */
    void enterFullFeature(IscsiSession s, LoginOutcome outcome) {
        login.cancelTimer();
        this.params = outcome.parameters();
        this.cid = outcome.cid();
        this.statSn = outcome.nextStatSn();
        this.tasks = new TaskSequencer(this, s);
        this.text = new TextExchange(this);
        this.logout = new LogoutRequests(this, s);
        this.session = s;
        s.addConnection(this);
    }

    private void fullFeature(Object msg) {
        if (closed) {
            ReferenceCountUtil.release(msg);
            return;
        }
        pingTtt = IscsiPdu.RESERVED_TAG; // any PDU proves the initiator is alive
        if (msg instanceof PduDecodeError error) {
            decodeError(error);
            return;
        }
        if (!(msg instanceof IscsiPdu pdu)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        switch (pdu.opcode()) {
            case Opcode.SCSI_COMMAND, Opcode.NOP_OUT, Opcode.TEXT_REQUEST, Opcode.LOGOUT_REQUEST,
                 Opcode.TASK_MGMT_REQUEST -> ordered(pdu);
            case Opcode.SCSI_DATA_OUT -> tasks.dataOut(pdu);
            case Opcode.SNACK_REQUEST -> rejectAndRelease(pdu, RejectReason.SNACK_REJECT); // ERL 0
            case Opcode.LOGIN_REQUEST -> rejectAndRelease(pdu, RejectReason.PROTOCOL_ERROR);
            default -> rejectAndRelease(pdu, RejectReason.COMMAND_NOT_SUPPORTED);
        }
    }

    private void decodeError(PduDecodeError error) {
        try {
            LOG.info("connection {}: {}", transport.remoteAddress(), error);
            sendReject(error.rejectReason(), error.header());
            if (error.fatal()) {
                transport.flush();
                closeNow();
            } else if (isDataOutDigestError(error)) {
                dataOutDigestError(error.header());
            }
        } finally {
            error.release();
        }
    }

    /** A Data-Out discarded for its DataDigest: its task must learn that the data is lost (RFC 7143 7.8). */
    private static boolean isDataOutDigestError(PduDecodeError error) {
        ByteBuf h = error.header();
        return error.rejectReason() == RejectReason.DATA_DIGEST_ERROR && h.readableBytes() >= IscsiPdu.BHS_LENGTH
                && (h.getByte(h.readerIndex()) & 0x3f) == Opcode.SCSI_DATA_OUT;
    }

    private void dataOutDigestError(ByteBuf header) {
        IscsiPdu lost = new IscsiPdu(header.retainedDuplicate(), Unpooled.EMPTY_BUFFER, Unpooled.EMPTY_BUFFER);
        try {
            tasks.dataOutDigestError(lost);
        } finally {
            lost.release();
        }
    }

    /** RFC 7143 4.2.2.1: immediate requests go at once, the rest in CmdSN order. */
    private void ordered(IscsiPdu pdu) {
        if (pdu.opcode() == Opcode.NOP_OUT && pdu.initiatorTaskTag() == IscsiPdu.RESERVED_TAG) {
            pdu.release(); // the answer to our ping (RFC 7143 11.18): nothing to send back
            return;
        }
        if (pdu.immediate()) {
            dispatch(pdu, true);
            return;
        }
        CmdSnWindow<IscsiSession.QueuedCommand> window = session.window();
        int cmdSn = pdu.cmdSn();
        switch (window.offer(cmdSn)) {
            case DELIVER -> {
                dispatch(pdu, false);
                deliverQueued();
            }
            case QUEUED -> window.enqueue(cmdSn, new IscsiSession.QueuedCommand(this, pdu));
            case IGNORE -> {
                LOG.debug("CmdSN {} outside [{}, {}]: ignored", cmdSn, window.expCmdSn(), window.maxCmdSn());
                pdu.release();
            }
        }
    }

    /** Delivers queued commands whose turn has come (they may belong to other connections). */
    void deliverQueued() {
        IscsiSession.QueuedCommand next;
        while ((next = session.window().pollNext()) != null) {
            next.connection().dispatch(next.pdu(), false);
        }
    }

    private void dispatch(IscsiPdu pdu, boolean immediate) {
        if (closed) {
            pdu.release();
            if (!immediate) {
                session.window().completed();
            }
            return;
        }
        int opcode = pdu.opcode();
        switch (opcode) {
            case Opcode.SCSI_COMMAND -> tasks.command(pdu, immediate);
            case Opcode.NOP_OUT -> nopOut(pdu);
            case Opcode.TEXT_REQUEST -> text.request(pdu);
            case Opcode.LOGOUT_REQUEST -> logout.request(pdu);
            case Opcode.TASK_MGMT_REQUEST -> tasks.taskManagement(pdu, immediate);
            default -> pdu.release();
        }
        if (!immediate && opcode != Opcode.SCSI_COMMAND) {
            session.window().completed(); // only SCSI tasks hold their window slot
        }
    }

    // ------------------------------------------------------------------ NOP

    /** RFC 7143 11.18-11.19: echo the ping data back with the same ITT. */
    private void nopOut(IscsiPdu pdu) {
        try {
            int len = Math.min(pdu.data().readableBytes(), params.initiatorMaxRecvDataSegmentLength());
            ByteBuf echo = len == 0 ? Unpooled.EMPTY_BUFFER : pdu.data().retainedSlice(pdu.data().readerIndex(), len);
            IscsiPdu in = targetPdu(Opcode.NOP_IN, echo, true);
            in.finalFlag(true);
            in.lunField(pdu.lunField());
            in.initiatorTaskTag(pdu.initiatorTaskTag());
            in.targetTransferTag(IscsiPdu.RESERVED_TAG);
            transport.sendAndFlush(in);
        } finally {
            pdu.release();
        }
    }

    /** Reader idle: ping (NOP-In with a TTT the initiator must echo), or close if the last ping got nothing. */
    private void ping() {
        if (closed) {
            return;
        }
        if (pingTtt != IscsiPdu.RESERVED_TAG) {
            LOG.info("connection {}: no answer to NOP-In, closing", transport.remoteAddress());
            closeNow();
            return;
        }
        pingTtt = nextTargetTransferTag();
        IscsiPdu ping = targetPdu(Opcode.NOP_IN, Unpooled.EMPTY_BUFFER, false);
        ping.finalFlag(true);
        ping.initiatorTaskTag(IscsiPdu.RESERVED_TAG);
        ping.targetTransferTag(pingTtt);
        transport.sendAndFlush(ping);
    }

    /**
     * Tells the initiator a moved MaxCmdSN when no response may be due for a while (waiting tasks
     * were dropped): RFC 7143 11.19, a NOP-In with ITT and TTT 0xffffffff wants no answer and
     * does not advance StatSN.
     */
    void announceWindow() {
        if (closed) {
            return;
        }
        IscsiPdu update = targetPdu(Opcode.NOP_IN, Unpooled.EMPTY_BUFFER, false);
        update.finalFlag(true);
        update.initiatorTaskTag(IscsiPdu.RESERVED_TAG);
        update.targetTransferTag(IscsiPdu.RESERVED_TAG);
        transport.sendAndFlush(update);
    }

    /** Called when a task ends: a waiting logout may now be answered. */
    void taskEnded() {
        logout.taskEnded();
    }

    /** RFC 7143 11.9.1 AsyncEvent 1: the target asks the initiator to log out within {@code seconds}. */
    void sendAsyncLogoutRequest(int seconds) {
        logout.sendAsyncLogoutRequest(seconds);
    }

    @Override
    public void dataOutFetched(TaskTransfer task, ByteBuf data) {
        tasks.dataOut().fetched((IscsiTask) task, data);
    }

    // ------------------------------------------------------------------ send helpers

    @Override
    public IscsiPdu targetPdu(int opcode, ByteBuf data, boolean advanceStatSn) {
        IscsiPdu pdu = IscsiPdu.create(transport.alloc(), opcode, data);
        pdu.statSn(advanceStatSn ? statSn++ : statSn);
        pdu.expCmdSn(session.window().expCmdSn());
        pdu.maxCmdSn(session.window().maxCmdSn());
        return pdu;
    }

    void rejectAndRelease(IscsiPdu pdu, int reason) {
        try {
            sendReject(reason, pdu.bhs());
        } finally {
            pdu.release();
        }
    }

    /** RFC 7143 11.17: a Reject carrying the complete header of the rejected PDU (borrowed). */
    void sendReject(int reason, ByteBuf header) {
        if (closed) {
            return;
        }
        ByteBuf copy = transport.alloc().buffer(IscsiPdu.BHS_LENGTH);
        copy.writeBytes(header, header.readerIndex(), Math.min(header.readableBytes(), IscsiPdu.BHS_LENGTH));
        IscsiPdu reject = targetPdu(Opcode.REJECT, copy, true);
        reject.finalFlag(true);
        reject.byte2(reason);
        reject.initiatorTaskTag(IscsiPdu.RESERVED_TAG);
        transport.sendAndFlush(reject);
    }

    @Override
    public int nextTargetTransferTag() {
        int t = nextTtt++;
        if (nextTtt == IscsiPdu.RESERVED_TAG) {
            nextTtt = 1;
        }
        return t;
    }

    // ------------------------------------------------------------------ accessors

    /** Tests replace the text-key services. */
    void textCodec(TextCodec codec) { this.textCodec = codec; }
    TextCodec textCodec() { return textCodec; }
    int cid() { return cid; }
    boolean isClosed() { return closed; }
    void markClosed() { closed = true; }
    @Override
    public NegotiatedParameters parameters() { return params; }
    IscsiSession session() { return session; }
    IscsiTransport transport() { return transport; }

    /** What the connections of this one's portal carried. */
    TransferCounters portalCounters() { return portalCounters; }
    LoginContext loginContext() { return login.context(); }
    ByteBufAllocator alloc() { return transport.alloc(); }
    EventExecutor sessionLoop() { return session.loop(); }
    TaskSequencer tasks() { return tasks; }
}
