package org.jtarget.fabric.iscsi.session;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.jtarget.scsi.spi.TargetCore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One iSCSI session (RFC 7143 4.4): an I_T nexus with one or more connections, the session-wide
 * CmdSN window and the negotiated parameters.
 *
 * <p>Threading: everything here, and every connection's full-feature state, is owned by the
 * event loop of the session's <em>first</em> connection ({@link #loop()}). A connection added on
 * another loop hands each received message to this loop and writes to its transport from here
 * (the transport hands writes over to its own loop). One writer, no locks, and commands reach
 * the core in CmdSN order across connections.
 */
public final class IscsiSession {

    private static final Logger LOG = LoggerFactory.getLogger(IscsiSession.class);

    private final SessionRegistry registry;
    private final IscsiTargetDefinition target;
    private final NegotiatedParameters parameters;
    private final long isid;
    private final int tsih;
    private final String portal;
    private final ITNexus nexus;
    private final TransferCounters counters = new TransferCounters();
    private final EventExecutor loop;
    private final CmdSnWindow<QueuedCommand> window;
    private final List<IscsiConnection> connections = new ArrayList<>(2);
    private final Promise<Void> terminated;
    private boolean loggedIn;
    private boolean ended;

    /** A non-immediate request waiting for its CmdSN turn: the PDU is retained by the entry. */
    record QueuedCommand(IscsiConnection connection, org.jtarget.fabric.iscsi.pdu.IscsiPdu pdu) {
    }

    IscsiSession(SessionRegistry registry, IscsiTargetDefinition target, NegotiatedParameters parameters, long isid,
                 int tsih, String portal, int portalGroupTag, int expCmdSn, int commandWindow, EventExecutor loop) {
        this.registry = registry;
        this.portal = portal;
        this.target = target;
        this.parameters = parameters;
        this.isid = isid;
        this.tsih = tsih;
        this.loop = loop;
        this.window = new CmdSnWindow<>(expCmdSn, commandWindow);
        this.terminated = loop.newPromise();
        this.nexus = target == null ? null : nexusFor(parameters.initiatorName(), isid, target.name(), portalGroupTag);
    }

    /** RFC 7143 13.8 / SPC-4 7.8.6: "iname,i,0x&lt;ISID&gt;" and "tname,t,0x&lt;TPGT&gt;". */
    static ITNexus nexusFor(String initiatorName, long isid, String targetName, int tpgt) {
        String isidHex = String.format(Locale.ROOT, "%012x", isid & 0xffff_ffff_ffffL);
        String tpgtHex = String.format(Locale.ROOT, "%04x", tpgt & 0xffff);
        return new ITNexus(ProtocolId.ISCSI, initiatorName, initiatorName + ",i,0x" + isidHex,
                targetName + ",t,0x" + tpgtHex, tpgt, tpgt);
    }

    public IscsiTargetDefinition target() { return target; }
    public NegotiatedParameters parameters() { return parameters; }
    public long isid() { return isid; }
    public int tsih() { return tsih; }
    /** The config name of the portal the session logged in through (its leading connection's). */
    public String portal() { return portal; }
    /** What the session's connections carried: commands, data bytes, failures. */
    public TransferCounters counters() { return counters; }
    /** The I_T nexus, or null for a discovery session. */
    public ITNexus nexus() { return nexus; }
    /** The event loop that owns this session's state. */
    public EventExecutor loop() { return loop; }
    public boolean discovery() { return target == null; }
    /** The target's SCSI core, or null for a discovery session. */
    public TargetCore core() { return target == null ? null : target.core(); }

    CmdSnWindow<QueuedCommand> window() { return window; }

    List<IscsiConnection> connections() { return connections; }

    /** Completes when the session has ended (nexus logged out), on {@link #loop()}. */
    public Future<Void> terminationFuture() { return terminated; }

    /** Adds a connection (on the session loop); the first one logs the nexus in to the core. */
    void addConnection(IscsiConnection connection) {
        connections.add(connection);
        if (!loggedIn && nexus != null) {
            loggedIn = true;
            target.core().nexusLoggedIn(nexus);
            LOG.info("session tsih={} {} logged in to {} (HeaderDigest={}, DataDigest={}, MaxRecvDataSegmentLength={}, "
                    + "MaxBurstLength={}, ImmediateData={}, InitialR2T={})", tsih, nexus.initiatorPortName(), target.name(),
                    parameters.headerDigest() ? "CRC32C" : "None", parameters.dataDigest() ? "CRC32C" : "None",
                    parameters.initiatorMaxRecvDataSegmentLength(), parameters.maxBurstLength(),
                    parameters.immediateData() ? "Yes" : "No", parameters.initialR2T() ? "Yes" : "No");
        }
    }

    /** The connection with that CID, or null. */
    IscsiConnection connection(int cid) {
        for (IscsiConnection c : connections) {
            if (c.cid() == cid) {
                return c;
            }
        }
        return null;
    }

    /** A connection is gone (on the session loop); the last one ends the session (ERL 0). */
    void removeConnection(IscsiConnection connection) {
        connections.remove(connection);
        if (connections.isEmpty()) {
            end();
        }
    }

    /**
     * Ends the session: closes every connection (their tasks are aborted as they close), logs
     * the nexus out of the core and leaves the registry. Safe to call from any thread.
     */
    public Future<Void> terminate() {
        if (!loop.inEventLoop()) {
            loop.execute(this::terminate);
            return terminated;
        }
        for (IscsiConnection c : new ArrayList<>(connections)) {
            c.closeNow();
        }
        if (connections.isEmpty()) {
            end();
        }
        return terminated;
    }

    /** One connection as the management API shows it: its CID and both ends' addresses. */
    public record ConnectionInfo(int cid, String peer, String local) {
    }

    /**
     * The session's connections now, read on the session loop (which owns the list): a caller off
     * the loop gets them without blocking it.
     */
    public java.util.concurrent.CompletableFuture<List<ConnectionInfo>> connectionInfo() {
        java.util.concurrent.CompletableFuture<List<ConnectionInfo>> answer = new java.util.concurrent.CompletableFuture<>();
        try {
            loop.execute(() -> {
                List<ConnectionInfo> all = new ArrayList<>(connections.size());
                for (IscsiConnection c : connections) {
                    all.add(new ConnectionInfo(c.cid(), hostPort(c.transport().remoteAddress()),
                            hostPort(c.transport().localAddress())));
                }
                answer.complete(all);
            });
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            answer.complete(List.of()); // the loop is shutting down: the session's connections are going
        }
        return answer;
    }

    /**
     * "host:port" ("[v6]:port") for an IP address, without InetSocketAddress's "/" in front (the
     * metrics endpoint writes SRP channels' peers the same way).
     */
    public static String hostPort(java.net.SocketAddress address) {
        if (address instanceof java.net.InetSocketAddress ip && ip.getAddress() != null) {
            String host = ip.getAddress().getHostAddress();
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + ip.getPort();
        }
        return String.valueOf(address);
    }

    /** Asks every connection's initiator to log out (RFC 7143 11.9.1, AsyncEvent 1). */
    public void requestLogout(int seconds) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> requestLogout(seconds));
            return;
        }
        for (IscsiConnection c : connections) {
            c.sendAsyncLogoutRequest(seconds);
        }
    }

    private void end() {
        if (ended) {
            return;
        }
        ended = true;
        for (QueuedCommand q : window.drain()) {
            q.pdu().release();
        }
        registry.remove(this);
        if (loggedIn) {
            target.core().nexusLoggedOut(nexus);
            LOG.info("session tsih={} {} ended", tsih, nexus.initiatorPortName());
        }
        terminated.trySuccess(null);
    }

    boolean ended() {
        return ended;
    }

    /** True if this session belongs to that initiator name, ISID and target (names case-insensitive). */
    boolean matches(String initiatorName, long isid, String targetName) {
        return this.isid == isid && parameters.initiatorName().equalsIgnoreCase(initiatorName)
                && (target == null ? targetName == null
                : targetName != null && target.name().equalsIgnoreCase(targetName));
    }
}
