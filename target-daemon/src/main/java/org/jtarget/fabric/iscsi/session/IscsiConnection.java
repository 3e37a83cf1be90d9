package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.login.LoginContext;
import org.jtarget.fabric.iscsi.login.LoginNegotiator;
import org.jtarget.fabric.iscsi.login.LoginOutcome;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.login.LoginStep;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.IscsiPduDecoder;
import org.jtarget.fabric.iscsi.pdu.IscsiPduEncoder;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.PduDecodeError;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.concurrent.TimeUnit;

/**
 * One iSCSI connection (RFC 7143 4.4): the last handler of the pipeline
 * (decoder → encoder → this). It runs the login phase through a {@link LoginNegotiator}, then
 * the full feature phase: CmdSN ordering, NOP ping, Text, Logout, task management, and SCSI
 * commands through its {@link TaskSequencer}.
 *
 * <p>Threading: during login everything runs on the channel's loop. From the full feature phase
 * on, all state is owned by the session's loop ({@link IscsiSession#loop()}); when this channel
 * lives on another loop each message is handed over (see {@link IscsiSession}).
 */
public final class IscsiConnection extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(IscsiConnection.class);

    /** Login Response bytes 36/37: Status-Class and Status-Detail (RFC 7143 11.13.5). */
    static final int LOGIN_STATUS_CLASS_OFFSET = 36;
    static final int LOGIN_STATUS_DETAIL_OFFSET = 37;
    /** Logout Request byte 1 low 7 bits: reason code (RFC 7143 11.14.1). */
    static final int LOGOUT_CLOSE_SESSION = 0;
    static final int LOGOUT_CLOSE_CONNECTION = 1;
    static final int LOGOUT_REMOVE_FOR_RECOVERY = 2;
    /** Logout Response codes (RFC 7143 11.15.1). */
    static final int LOGOUT_OK = 0;
    static final int LOGOUT_CID_NOT_FOUND = 1;
    static final int LOGOUT_RECOVERY_NOT_SUPPORTED = 2;
    /** Logout Response Time2Wait / Time2Retain (RFC 7143 11.15.2-3). */
    static final int TIME2WAIT_OFFSET = 40;
    static final int TIME2RETAIN_OFFSET = 42;
    /** Async Message (RFC 7143 11.9): AsyncEvent at byte 36, Parameter3 at bytes 42-43. */
    static final int ASYNC_EVENT_OFFSET = 36;
    static final int ASYNC_PARAMETER3_OFFSET = 42;
    static final int ASYNC_EVENT_LOGOUT_REQUEST = 1;

    private final SessionRegistry registry;
    private final IscsiPortalDefinition portal;
    private final Collection<IscsiTargetDefinition> targets;
    private final LoginSettings loginSettings;
    private final ConnectionSettings connectionSettings;

    private ChannelHandlerContext ctx;
    private LoginContext loginContext;
    private LoginNegotiator negotiator;
    private ScheduledFuture<?> loginTimer;
    private volatile IscsiSession session;
    private NegotiatedParameters params;
    private TaskSequencer tasks;
    private TextExchange text;
    private int cid;
    private int statSn;
    private int nextTtt = 1;
    private int pingTtt = IscsiPdu.RESERVED_TAG;
    private boolean closed;
    private boolean lostHandled;
    private boolean loginPending;
    private TextCodec textCodec = TextCodec.DEFAULT;
    /** A Logout Request waiting for the connection's tasks to end (ITT), or null. */
    private IscsiPdu logoutWaiting;

    /**
     * @param registry           the fabric's live sessions (TSIH allocation, reinstatement)
     * @param portal             the portal this connection arrived on
     * @param targets            the targets served through that portal
     * @param loginSettings      the target's negotiation limits and the command window
     * @param connectionSettings login timeout and NOP-In interval
     */
    public IscsiConnection(SessionRegistry registry, IscsiPortalDefinition portal,
                           Collection<IscsiTargetDefinition> targets, LoginSettings loginSettings,
                           ConnectionSettings connectionSettings) {
        this.registry = registry;
        this.portal = portal;
        this.targets = targets;
        this.loginSettings = loginSettings;
        this.connectionSettings = connectionSettings;
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.loginContext = new IscsiLoginContext(portalWithLocalAddress(), targets, registry);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        loginContext = new IscsiLoginContext(portalWithLocalAddress(), targets, registry);
        if (session == null) {
            long ms = connectionSettings.loginTimeout().toMillis();
            loginTimer = ctx.executor().schedule(this::loginTimedOut, ms, TimeUnit.MILLISECONDS);
        }
        ctx.fireChannelActive();
    }

    /** The portal, with the connection's real local address when it was bound to a wildcard. */
    private IscsiPortalDefinition portalWithLocalAddress() {
        if (ctx.channel().localAddress() instanceof InetSocketAddress local
                && (local.getAddress() != null) && isWildcard(portal.host())) {
            return new IscsiPortalDefinition(portal.name(), local.getAddress().getHostAddress(), portal.port(),
                    portal.portalGroupTag());
        }
        return portal;
    }

    private static boolean isWildcard(String host) {
        return host == null || host.isEmpty() || "0.0.0.0".equals(host) || "::".equals(host) || "*".equals(host);
    }

    private void loginTimedOut() {
        if (session == null && ctx.channel().isActive()) {
            LOG.info("connection {}: login not completed in {}, closing", ctx.channel().remoteAddress(),
                    connectionSettings.loginTimeout());
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (loginTimer != null) {
            loginTimer.cancel(false);
        }
        IscsiSession s = session;
        if (s == null) {
            closed = true;
        } else {
            onSessionLoop(s, this::connectionLost);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // DESIGN 4.4: stop reading while the peer does not drain our output.
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!closed) {
            LOG.warn("connection {}: closing after error", ctx.channel().remoteAddress(), cause);
        }
        closed = true;
        ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        IscsiSession s = session;
        if (evt instanceof IdleStateEvent && s != null) {
            onSessionLoop(s, this::idle);
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    private static void onSessionLoop(IscsiSession s, Runnable r) {
        if (s.loop().inEventLoop()) {
            r.run();
        } else {
            s.loop().execute(r);
        }
    }

    /** Closes the channel; tasks are aborted when it is gone. Any thread. */
    void closeNow() {
        closed = true;
        ctx.close();
    }

    private void connectionLost() {
        if (lostHandled) {
            return;
        }
        lostHandled = true;
        closed = true;
        if (logoutWaiting != null) {
            logoutWaiting.release();
            logoutWaiting = null;
        }
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
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        IscsiSession s = session;
        if (s == null) {
            loginPhase(msg);
        } else if (s.loop().inEventLoop()) {
            fullFeature(msg);
        } else {
            s.loop().execute(() -> fullFeature(msg));
        }
    }

    private void loginPhase(Object msg) {
        if (loginPending || !(msg instanceof IscsiPdu pdu) || pdu.opcode() != Opcode.LOGIN_REQUEST) {
            // RFC 7143 6: only Login Requests until the login completes; anything else ends it.
            LOG.info("connection {}: {} during login, closing", ctx.channel().remoteAddress(), msg);
            ReferenceCountUtil.release(msg);
            closeNow();
            return;
        }
        LoginStep step;
        try {
            if (negotiator == null) {
                negotiator = new LoginNegotiator(loginContext, loginSettings);
            }
            step = negotiator.handle(pdu, ctx.alloc());
        } finally {
            pdu.release();
        }
        switch (step.kind()) {
            case CONTINUE -> ctx.writeAndFlush(step.response());
            case FAILED -> {
                // RFC 7143 11.13.5: Status-Class and Status-Detail are bytes 36 and 37 of the response
                LOG.info("connection {}: login refused with status 0x{}: {}", ctx.channel().remoteAddress(),
                        Integer.toHexString(step.response().bhs().getUnsignedShort(36)), negotiator.refusalReason());
                ctx.writeAndFlush(step.response()).addListener(ChannelFutureListener.CLOSE);
            }
            case FULL_FEATURE -> loginSucceeded(step);
        }
    }

    /** RFC 7143 6.3: a new session, a reinstated one (6.3.5) or a connection added to one. */
    private void loginSucceeded(LoginStep step) {
        LoginOutcome outcome = step.outcome();
        NegotiatedParameters p = outcome.parameters();
        loginPending = true;
        if (outcome.tsih() != 0) {
            IscsiSession existing = registry.find(outcome.tsih(), p.initiatorName(), outcome.isid(), p.targetName());
            if (existing == null) {
                failLogin(step.response(), 0x0a); // session does not exist
                return;
            }
            onSessionLoop(existing, () -> joinSession(existing, step));
            return;
        }
        IscsiSession old = p.discovery() ? null
                : registry.findByIsid(p.initiatorName(), outcome.isid(), p.targetName());
        if (old == null) {
            createSession(step);
            return;
        }
        LOG.info("reinstating session tsih={} of {}", old.tsih(), p.initiatorName());
        EventExecutor mine = ctx.executor();
        old.terminate().addListener(f -> mine.execute(() -> createSession(step)));
    }

    private void createSession(LoginStep step) {
        if (!ctx.channel().isActive()) {
            step.response().release();
            return;
        }
        IscsiSession s = newSession(step.outcome());
        joinSession(s, step);
    }

    private IscsiSession newSession(LoginOutcome outcome) {
        int tsih = registry.allocateTsih();
        IscsiTargetDefinition target = outcome.parameters().discovery() ? null : outcome.target();
        IscsiSession s = new IscsiSession(registry, target, outcome.parameters(), outcome.isid(), tsih,
                portal.portalGroupTag(), outcome.expCmdSn(), loginSettings.commandWindow(), ctx.executor(),
                connectionSettings.queueDepths());
        registry.register(s);
        return s;
    }

    /** On the session loop: admit this connection, then send the final login response. */
    private void joinSession(IscsiSession s, LoginStep step) {
        LoginOutcome outcome = step.outcome();
        IscsiConnection sameCid = s.connection(outcome.cid());
        if (s.ended() || !ctx.channel().isActive()) {
            failLogin(step.response(), 0x0a);
            return;
        }
        if (sameCid == null && s.connections().size() >= s.parameters().maxConnections()) {
            failLogin(step.response(), 0x06); // too many connections (RFC 7143 11.13.5)
            return;
        }
        if (sameCid != null) {
            sameCid.closeNow(); // RFC 7143 6.3.4 connection reinstatement: ERL 0 aborts its tasks
        }
        enterFullFeature(s, outcome);
        IscsiPdu response = step.response();
        response.tsih(s.tsih());
        response.expCmdSn(s.window().expCmdSn());
        response.maxCmdSn(s.window().maxCmdSn());
        if (ctx.executor().inEventLoop()) {
            sendFinalLoginResponse(response);
        } else {
            ctx.executor().execute(() -> sendFinalLoginResponse(response));
        }
    }

    private void failLogin(IscsiPdu response, int detail) {
        response.bhs().setByte(LOGIN_STATUS_CLASS_OFFSET, 2);
        response.bhs().setByte(LOGIN_STATUS_DETAIL_OFFSET, detail);
        response.flags(response.flags() & ~IscsiPdu.FINAL_BIT);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    /** Channel loop: the final response leaves with the login settings, then digests switch on. */
    private void sendFinalLoginResponse(IscsiPdu response) {
        ctx.writeAndFlush(response);
        IscsiPduEncoder encoder = ctx.pipeline().get(IscsiPduEncoder.class);
        if (encoder != null) {
            encoder.configure(params.headerDigest(), params.dataDigest());
        }
        IscsiPduDecoder decoder = ctx.pipeline().get(IscsiPduDecoder.class);
        if (decoder != null) {
            decoder.configure(params.headerDigest(), params.dataDigest(), params.targetMaxRecvDataSegmentLength());
        }
    }

    /**
     * Puts this connection in the full feature phase of a session (creating the session when
     * {@code outcome.tsih()} is 0). Used after a successful login, and by tests that skip login.
     */
    void startFullFeature(LoginOutcome outcome) {
        IscsiSession s = outcome.tsih() == 0 ? newSession(outcome)
                : registry.find(outcome.tsih(), outcome.parameters().initiatorName(), outcome.isid(),
                outcome.parameters().targetName());
        enterFullFeature(s, outcome);
    }

    private void enterFullFeature(IscsiSession s, LoginOutcome outcome) {
        if (loginTimer != null) {
            loginTimer.cancel(false);
        }
        this.params = outcome.parameters();
        this.cid = outcome.cid();
        this.statSn = outcome.nextStatSn();
        this.tasks = new TaskSequencer(this, s);
        this.text = new TextExchange(this);
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
            LOG.info("connection {}: {}", ctx.channel().remoteAddress(), error);
            sendReject(error.rejectReason(), error.header());
            if (error.fatal()) {
                ctx.flush();
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
            case Opcode.LOGOUT_REQUEST -> logout(pdu);
            case Opcode.TASK_MGMT_REQUEST -> tasks.taskManagement(pdu, immediate);
            default -> pdu.release();
        }
        if (!immediate && opcode != Opcode.SCSI_COMMAND) {
            session.window().completed(); // only SCSI tasks hold their window slot
        }
    }

    // ------------------------------------------------------------------ NOP, logout, async

    /** RFC 7143 11.18-11.19: echo the ping data back with the same ITT. */
    private void nopOut(IscsiPdu pdu) {
        try {
            int len = Math.min(pdu.data().readableBytes(), params.initiatorMaxRecvDataSegmentLength());
            ByteBuf echo = len == 0 ? Unpooled.EMPTY_BUFFER : pdu.data().retainedSlice(pdu.data().readerIndex(), len);
            IscsiPdu in = response(Opcode.NOP_IN, echo, true);
            in.finalFlag(true);
            in.lunField(pdu.lunField());
            in.initiatorTaskTag(pdu.initiatorTaskTag());
            in.targetTransferTag(IscsiPdu.RESERVED_TAG);
            writeAndFlush(in);
        } finally {
            pdu.release();
        }
    }

    /** Reader idle: ping (NOP-In with a TTT the initiator must echo), or close if the last ping got nothing. */
    private void idle() {
        if (closed) {
            return;
        }
        if (pingTtt != IscsiPdu.RESERVED_TAG) {
            LOG.info("connection {}: no answer to NOP-In, closing", ctx.channel().remoteAddress());
            closeNow();
            return;
        }
        pingTtt = nextTtt();
        IscsiPdu ping = response(Opcode.NOP_IN, Unpooled.EMPTY_BUFFER, false);
        ping.finalFlag(true);
        ping.initiatorTaskTag(IscsiPdu.RESERVED_TAG);
        ping.targetTransferTag(pingTtt);
        writeAndFlush(ping);
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
        IscsiPdu update = response(Opcode.NOP_IN, Unpooled.EMPTY_BUFFER, false);
        update.finalFlag(true);
        update.initiatorTaskTag(IscsiPdu.RESERVED_TAG);
        update.targetTransferTag(IscsiPdu.RESERVED_TAG);
        writeAndFlush(update);
    }

    private void logout(IscsiPdu pdu) {
        int reason = pdu.flags() & 0x7f;
        int logoutCid = pdu.word20() >>> 16;
        if (reason == LOGOUT_REMOVE_FOR_RECOVERY) {
            sendLogoutResponse(pdu, LOGOUT_RECOVERY_NOT_SUPPORTED, false); // ERL 0
            return;
        }
        if (reason == LOGOUT_CLOSE_CONNECTION && logoutCid != cid) {
            IscsiConnection other = session.connection(logoutCid);
            if (other != null) {
                other.closeNow();
            }
            sendLogoutResponse(pdu, other == null ? LOGOUT_CID_NOT_FOUND : LOGOUT_OK, false);
            return;
        }
        if (reason == LOGOUT_CLOSE_SESSION) {
            for (IscsiConnection c : session.connections().toArray(new IscsiConnection[0])) {
                if (c != this) {
                    c.closeNow();
                }
            }
        }
        // RFC 7143 11.14: respond once the connection's outstanding tasks have ended.
        logoutWaiting = pdu;
        taskEnded();
    }

    /** Called when a task ends: a waiting logout may now be answered. */
    void taskEnded() {
        if (logoutWaiting != null && tasks.isEmpty() && !closed) {
            IscsiPdu request = logoutWaiting;
            logoutWaiting = null;
            sendLogoutResponse(request, LOGOUT_OK, true);
        }
    }

    private void sendLogoutResponse(IscsiPdu request, int code, boolean close) {
        IscsiPdu out = response(Opcode.LOGOUT_RESPONSE, Unpooled.EMPTY_BUFFER, true);
        out.finalFlag(true);
        out.byte2(code);
        out.initiatorTaskTag(request.initiatorTaskTag());
        request.release();
        if (code == LOGOUT_OK) {
            out.bhs().setShort(TIME2WAIT_OFFSET, params.defaultTime2Wait());
            out.bhs().setShort(TIME2RETAIN_OFFSET, params.defaultTime2Retain());
        }
        if (close) {
            closed = true;
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
        } else {
            writeAndFlush(out);
        }
    }

    /** RFC 7143 11.9.1 AsyncEvent 1: the target asks the initiator to log out within {@code seconds}. */
    void sendAsyncLogoutRequest(int seconds) {
        if (closed) {
            return;
        }
        IscsiPdu async = response(Opcode.ASYNC_MESSAGE, Unpooled.EMPTY_BUFFER, true);
        async.finalFlag(true);
        async.initiatorTaskTag(IscsiPdu.RESERVED_TAG);
        async.bhs().setByte(ASYNC_EVENT_OFFSET, ASYNC_EVENT_LOGOUT_REQUEST);
        async.bhs().setShort(ASYNC_PARAMETER3_OFFSET, seconds);
        writeAndFlush(async);
    }

    // ------------------------------------------------------------------ send helpers

    /**
     * A new target PDU with StatSN, ExpCmdSN and MaxCmdSN filled (RFC 7143 11.2.1); consumes
     * data. StatSN advances only for PDUs that carry a status.
     */
    IscsiPdu response(int opcode, ByteBuf data, boolean advanceStatSn) {
        IscsiPdu pdu = IscsiPdu.create(ctx.alloc(), opcode, data);
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
        ByteBuf copy = ctx.alloc().buffer(IscsiPdu.BHS_LENGTH);
        copy.writeBytes(header, header.readerIndex(), Math.min(header.readableBytes(), IscsiPdu.BHS_LENGTH));
        IscsiPdu reject = response(Opcode.REJECT, copy, true);
        reject.finalFlag(true);
        reject.byte2(reason);
        reject.initiatorTaskTag(IscsiPdu.RESERVED_TAG);
        writeAndFlush(reject);
    }

    void write(IscsiPdu pdu) {
        ctx.write(pdu, ctx.voidPromise());
    }

    void writeAndFlush(IscsiPdu pdu) {
        ctx.writeAndFlush(pdu, ctx.voidPromise());
    }

    void flush() {
        ctx.flush();
    }

    /** A Target Transfer Tag that is never the reserved 0xffffffff. */
    int nextTtt() {
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
    NegotiatedParameters parameters() { return params; }
    IscsiSession session() { return session; }
    LoginContext loginContext() { return loginContext; }
    ByteBufAllocator alloc() { return ctx.alloc(); }
    EventExecutor sessionLoop() { return session.loop(); }
    TaskSequencer tasks() { return tasks; }
}
