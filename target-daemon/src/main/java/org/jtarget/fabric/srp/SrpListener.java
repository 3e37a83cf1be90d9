package org.jtarget.fabric.srp;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.fabric.rdma.CompletionPoller;
import org.jtarget.fabric.rdma.ConnectionQueues;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.srp.iu.SrpIu;
import org.jtarget.fabric.srp.iu.SrpLogout;
import org.jtarget.fabric.srp.iu.SrpLoginReject;
import org.jtarget.fabric.srp.iu.SrpLoginRequest;
import org.jtarget.fabric.srp.iu.SrpLoginResponse;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventHandler;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SRP logins on one connection manager listener (an SRP portal): the SRP_LOGIN_REQ travels in the
 * connect request's private data (the RDMA/CM form Linux's ib_srp sends) and the answer in the
 * accept's (SRP_LOGIN_RSP) or the reject's (SRP_LOGIN_REJ), SRP r16a 6.2-6.4. A login is refused,
 * with the reason code r16a gives for it, when: its request is malformed or names a target port
 * this portal does not serve (unable to establish the channel), the target's ACL does not list the
 * initiator port (unable to establish), the requested IU length is above the target's (too large),
 * it supports neither direct nor indirect descriptors (descriptor format), or its MULTI-CHANNEL
 * ACTION is reserved. An accepted login gets a queue pair, a completion queue and an
 * {@link SrpChannel} on the provider's loop.
 */
public final class SrpListener implements CmEventHandler {

    private static final Logger LOG = LoggerFactory.getLogger(SrpListener.class);

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final RegisteredMemory memory;
    private final EventExecutorGroup loops;
    private final SrpLimits limits;
    private final SrpTargetPorts ports;
    private final SrpNexusTable nexuses;
    private final int relativePortId;
    private final String portalName;
    private final TransferCounters portalCounters;
    private final Map<CmId, SrpChannel> channels = new ConcurrentHashMap<>();

    /**
     * @param relativePortId the portal's relative target port identifier and target port group
     *                       (its portal group tag, as for iSCSI portals)
     * @param portalCounters what the channels of the portal carried (its channels count into them)
     */
    public SrpListener(RdmaDevice device, ProtectionDomain pd, RegisteredMemory memory, EventExecutorGroup loops,
                       SrpLimits limits, SrpTargetPorts ports, SrpNexusTable nexuses, int relativePortId,
                       String portalName, TransferCounters portalCounters) {
        this.portalName = portalName;
        this.portalCounters = portalCounters;
        this.device = device;
        this.pd = pd;
        this.memory = memory;
        this.loops = loops;
        this.limits = limits;
        this.ports = ports;
        this.nexuses = nexuses;
        this.relativePortId = relativePortId;
    }

    /** Channels currently served. */
    public int channels() {
        return channels.size();
    }

    /** What each channel served now carried, with what identifies it (a target gone: its port name). */
    List<SrpFabric.ChannelTraffic> channelTraffic() {
        List<SrpFabric.ChannelTraffic> all = new ArrayList<>();
        for (SrpChannel c : channels.values()) {
            ITNexus nexus = c.commands().nexus();
            SrpTarget target = ports.find(nexus.targetPortName());
            all.add(new SrpFabric.ChannelTraffic(target == null ? nexus.targetPortName() : target.name(),
                    nexus.initiatorPortName(), portalName, c.cmId().remoteAddress(),
                    c.commands().counters()));
        }
        return all;
    }

    /** Logs every channel out (SRP_T_LOGOUT, then the disconnect). */
    public void logoutAll() {
        for (SrpChannel c : channels.values()) {
            c.logout(SrpLogout.NO_REASON);
        }
    }

    @Override
    public void onEvent(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> connectRequest(e.id(), e.privateData());
            case DISCONNECTED -> disconnected(e.id());
            default -> {
                // ESTABLISHED follows our own accept: the channel started before it
            }
        }
    }

    private void connectRequest(CmId id, byte[] privateData) {
        SrpLoginRequest request;
        switch (SrpLoginRequest.decode(privateData)) {
            case Decoded.Malformed<SrpLoginRequest> m -> {
                refuse(id, 0, SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL, "malformed SRP_LOGIN_REQ: " + m.reason());
                return;
            }
            case Decoded.Ok<SrpLoginRequest> ok -> request = ok.value();
        }
        String initiatorPort = request.initiatorPortId().name();
        String targetPort = request.targetPortId().name();
        SrpTarget target = ports.find(targetPort);
        int reason = refusal(request, target, initiatorPort);
        if (reason != 0) {
            refuse(id, request.tag(), reason, "initiator port " + initiatorPort + ", target port " + targetPort
                    + (target == null ? " (not served here)" : " (" + target.name() + ")"));
            return;
        }
        accept(id, request, target, new ITNexus(ProtocolId.SRP, initiatorPort, initiatorPort, targetPort,
                relativePortId, relativePortId));
    }

    /** The SRP_LOGIN_REJ reason for a login the target cannot take, or 0. */
    private int refusal(SrpLoginRequest request, SrpTarget target, String initiatorPort) {
        if (target == null || !target.admitted().test(initiatorPort)) {
            return SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL;
        }
        if (request.maxInitiatorToTargetIuLength() > limits.maxItIuLength()) {
            return SrpLoginReject.IU_LENGTH_TOO_LARGE;
        }
        if (request.maxInitiatorToTargetIuLength() < SrpLimits.MIN_IT_IU_LENGTH) {
            return SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL;
        }
        if ((request.bufferFormats() & SUPPORTED_FORMATS) == 0) {
            return SrpLoginReject.BUFFER_FORMAT_NOT_SUPPORTED;
        }
        if (request.multiChannelAction() > 1) {
            return SrpLoginReject.MULTI_CHANNEL_ACTION_NOT_SUPPORTED;
        }
        return 0;
    }

    /** Direct and indirect data buffer descriptors (r16a 6.8): what SRP_LOGIN_RSP's SUPPORTED BUFFER FORMATS says. */
    static final int SUPPORTED_FORMATS = SrpIu.BUFFER_FORMAT_DIRECT | SrpIu.BUFFER_FORMAT_INDIRECT;

    /**
     * Immediate data (SRP-2, what Linux's ib_srp asks for) when requested at an offset past the
     * SRP_CMD's fixed part and one immediate descriptor, inside the IU; else -1.
     */
    private static int immediateDataOffset(SrpLoginRequest request) {
        int offset = request.immediateDataOffset();
        boolean usable = request.immediateDataRequested() && offset >= 48 + 4
                && offset <= request.maxInitiatorToTargetIuLength();
        return usable ? offset : -1;
    }

    private void accept(CmId id, SrpLoginRequest request, SrpTarget target, ITNexus nexus) {
        EventExecutor loop = id.ioExecutor() instanceof EventExecutor io ? io : loops.next();
        int itIuLength = request.maxInitiatorToTargetIuLength();
        int immediateOffset = immediateDataOffset(request);
        CompletionPoller poller = new CompletionPoller(loop);
        SrpChannel channel;
        QueuePair qp;
        try {
            ConnectionQueues queues = ConnectionQueues.create(device, pd, poller,
                    limits.sendDepth() + limits.dataDepth(), limits.receiveDepth()); // receives before the accept
            qp = queues.qp();
            channel = new SrpChannel(qp, queues.cq(), poller, id, loop, memory, limits, itIuLength, immediateOffset, nexus,
                    target.core(), this::channelEnded, portalCounters);
        } catch (RdmaException ex) {
            refuse(id, request.tag(), SrpLoginReject.INSUFFICIENT_CHANNEL_RESOURCES, ex.getMessage());
            return;
        }
        String shortage = channel.prepare();
        if (shortage != null) {
            refuse(id, request.tag(), SrpLoginReject.INSUFFICIENT_CHANNEL_RESOURCES, shortage);
            endOn(loop, channel);
            return;
        }
        channels.put(id, channel);
        SrpNexusTable.Joined joined = nexuses.join(nexus, target.core(), channel, request.multiChannelAction() == 1);
        for (SrpChannel old : joined.terminated()) {
            old.logout(SrpLogout.NO_REASON);
        }
        loop.execute(channel::start); // before the first receive completion, which is polled on the same loop
        SrpLoginResponse response = new SrpLoginResponse(limits.credits(), request.tag(), itIuLength,
                SrpLimits.MAX_TI_IU_LENGTH, SUPPORTED_FORMATS,
                joined.multiChannelResult() | (immediateOffset >= 0 ? SrpLoginResponse.IMMEDIATE_DATA_SUPPORTED : 0));
        try {
            id.accept(qp, response.encode());
            LOG.info("SRP login from {} (initiator port {}) to {} as target port {}: {} credits, IUs up to {} bytes{}",
                    id.remoteAddress(), nexus.initiatorPortName(), target.name(), nexus.targetPortName(),
                    limits.credits(), itIuLength, immediateOffset >= 0 ? ", immediate data at " + immediateOffset : "");
        } catch (RdmaException ex) {
            LOG.info("SRP login from {}: accept failed: {}", id.remoteAddress(), ex.getMessage());
            channels.remove(id);
            endOn(loop, channel);
        }
    }

    private void refuse(CmId id, long tag, int reason, String why) {
        LOG.warn("SRP login from {} rejected ({}): {}", id.remoteAddress(), SrpLoginReject.describe(reason), why);
        id.reject(new SrpLoginReject(reason, tag, SUPPORTED_FORMATS).encode());
    }

    private void disconnected(CmId id) {
        SrpChannel c = channels.remove(id);
        if (c != null) {
            endOn(c.executor(), c);
        }
    }

    private void channelEnded(SrpChannel channel) {
        channels.remove(channel.cmId(), channel);
        nexuses.leave(channel.commands().nexus(), channel);
    }

    /** Ends the channel on its loop, or here if that loop has stopped already (shutdown). */
    private static void endOn(EventExecutor loop, SrpChannel channel) {
        CompletionPoller.onLoop(loop, channel::disconnected);
    }
}
