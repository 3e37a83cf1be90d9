package org.jtarget.fabric.iscsi.session;

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
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.spi.IscsiTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.concurrent.TimeUnit;

/**
 * The login phase of one connection (RFC 7143 6): Login Requests through a
 * {@link LoginNegotiator}, the login timeout, then a new session, a reinstated one (6.3.5) or a
 * connection added to one. Runs on the transport's loop until the connection joins its session.
 */
final class LoginPhase {

    private static final Logger LOG = LoggerFactory.getLogger(LoginPhase.class);

    /** Login Response bytes 36/37: Status-Class and Status-Detail (RFC 7143 11.13.5). */
    static final int LOGIN_STATUS_CLASS_OFFSET = 36;
    static final int LOGIN_STATUS_DETAIL_OFFSET = 37;

    private final IscsiConnection connection;
    private final IscsiTransport transport;
    private final SessionRegistry registry;
    private final IscsiPortalDefinition portal;
    private final Collection<IscsiTargetDefinition> targets;
    private final LoginSettings loginSettings;
    private final ConnectionSettings connectionSettings;
    private LoginContext loginContext;
    private LoginNegotiator negotiator;
    private ScheduledFuture<?> loginTimer;
    private boolean loginPending;

    LoginPhase(IscsiConnection connection, SessionRegistry registry, IscsiPortalDefinition portal,
               Collection<IscsiTargetDefinition> targets, LoginSettings loginSettings,
               ConnectionSettings connectionSettings) {
        this.connection = connection;
        this.transport = connection.transport();
        this.registry = registry;
        this.portal = portal;
        this.targets = targets;
        this.loginSettings = loginSettings;
        this.connectionSettings = connectionSettings;
    }

    LoginContext context() {
        return loginContext;
    }

    void attached() {
        loginContext = new IscsiLoginContext(portalWithLocalAddress(), targets, registry);
    }

    /** The connection is up; the login must complete within the login timeout. */
    void active(boolean loggingIn) {
        loginContext = new IscsiLoginContext(portalWithLocalAddress(), targets, registry);
        if (loggingIn) {
            long ms = connectionSettings.loginTimeout().toMillis();
            loginTimer = transport.executor().schedule(this::loginTimedOut, ms, TimeUnit.MILLISECONDS);
        }
    }

    void cancelTimer() {
        if (loginTimer != null) {
            loginTimer.cancel(false);
        }
    }

    /** The portal, with the connection's real local address when it was bound to a wildcard. */
    private IscsiPortalDefinition portalWithLocalAddress() {
        if (transport.localAddress() instanceof InetSocketAddress local
                && (local.getAddress() != null) && isWildcard(portal.host())) {
            return new IscsiPortalDefinition(portal.name(), local.getAddress().getHostAddress(), portal.port(),
                    portal.portalGroupTag(), portal.rdma());
        }
        return portal;
    }

    private static boolean isWildcard(String host) {
        return host == null || host.isEmpty() || "0.0.0.0".equals(host) || "::".equals(host) || "*".equals(host);
    }

    private void loginTimedOut() {
        if (connection.session() == null && transport.isActive()) {
            LOG.info("connection {}: login not completed in {}, closing", transport.remoteAddress(),
                    connectionSettings.loginTimeout());
            transport.close();
        }
    }

    /** A message before the full feature phase (consumed). */
    void received(Object msg) {
        if (loginPending || !(msg instanceof IscsiPdu pdu) || pdu.opcode() != Opcode.LOGIN_REQUEST) {
            // RFC 7143 6: only Login Requests until the login completes; anything else ends it.
            LOG.info("connection {}: {} during login, closing", transport.remoteAddress(), msg);
            ReferenceCountUtil.release(msg);
            connection.closeNow();
            return;
        }
        LoginStep step;
        try {
            if (negotiator == null) {
                negotiator = new LoginNegotiator(loginContext, loginSettings, transport.rdmaExtensions());
            }
            step = negotiator.handle(pdu, transport.alloc());
        } finally {
            pdu.release();
        }
        switch (step.kind()) {
            case CONTINUE -> transport.sendAndFlush(step.response());
            case FAILED -> {
                // RFC 7143 11.13.5: Status-Class and Status-Detail are bytes 36 and 37 of the response
                int status = step.response().bhs().getUnsignedShort(LOGIN_STATUS_CLASS_OFFSET);
                registry.logins().countRefused(status);
                LOG.info("connection {}: login refused with status 0x{}: {}", transport.remoteAddress(),
                        Integer.toHexString(status), negotiator.refusalReason());
                transport.sendAndClose(step.response());
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
            IscsiConnection.onSessionLoop(existing, () -> joinSession(existing, step));
            return;
        }
        IscsiSession old = p.discovery() ? null
                : registry.findByIsid(p.initiatorName(), outcome.isid(), p.targetName());
        if (old == null) {
            createSession(step);
            return;
        }
        LOG.info("reinstating session tsih={} of {}", old.tsih(), p.initiatorName());
        EventExecutor mine = transport.executor();
        old.terminate().addListener(f -> mine.execute(() -> createSession(step)));
    }

    private void createSession(LoginStep step) {
        if (!transport.isActive()) {
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
                portal.name(), portal.portalGroupTag(), outcome.expCmdSn(), loginSettings.commandWindow(), transport.executor());
        registry.register(s);
        return s;
    }

    /** On the session loop: admit this connection, then send the final login response. */
    private void joinSession(IscsiSession s, LoginStep step) {
        LoginOutcome outcome = step.outcome();
        IscsiConnection sameCid = s.connection(outcome.cid());
        if (s.ended() || !transport.isActive()) {
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
        connection.enterFullFeature(s, outcome);
        registry.logins().countAccepted(outcome.parameters().discovery());
        IscsiPdu response = step.response();
        response.tsih(s.tsih());
        response.expCmdSn(s.window().expCmdSn());
        response.maxCmdSn(s.window().maxCmdSn());
        if (transport.executor().inEventLoop()) {
            sendFinalLoginResponse(response);
        } else {
            transport.executor().execute(() -> sendFinalLoginResponse(response));
        }
    }

    private void failLogin(IscsiPdu response, int detail) {
        registry.logins().countRefused(0x0200 | detail);
        response.bhs().setByte(LOGIN_STATUS_CLASS_OFFSET, 2);
        response.bhs().setByte(LOGIN_STATUS_DETAIL_OFFSET, detail);
        response.flags(response.flags() & ~IscsiPdu.FINAL_BIT);
        transport.sendAndClose(response);
    }

    /** Transport loop: the final response leaves with the login framing, then the negotiated one holds. */
    private void sendFinalLoginResponse(IscsiPdu response) {
        transport.sendAndFlush(response);
        transport.loginComplete(connection.parameters());
    }

    /**
     * Puts the connection in the full feature phase of a session (creating the session when
     * {@code outcome.tsih()} is 0), skipping the login: for tests.
     */
    void startFullFeature(LoginOutcome outcome) {
        IscsiSession s = outcome.tsih() == 0 ? newSession(outcome)
                : registry.find(outcome.tsih(), outcome.parameters().initiatorName(), outcome.isid(),
                outcome.parameters().targetName());
        connection.enterFullFeature(s, outcome);
    }
}
