package org.jtarget.daemon;

import io.netty.channel.EventLoopGroup;
import org.jtarget.buffer.BufferPool;
import org.jtarget.config.PortalConfig;
import org.jtarget.fabric.srp.SrpFabric;
import org.jtarget.fabric.srp.SrpLimits;
import org.jtarget.fabric.srp.SrpTarget;
import org.jtarget.fabric.srp.SrpTargetSettings;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;
import org.jtarget.scsi.lun.NodeAcl;
import org.jtarget.scsi.lun.TargetRegistry;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The SRP fabric of the daemon, made when the config has a portal with {@code transport: srp}: an
 * iwarp provider device (iWARP over TCP, what Linux's siw speaks, so that ib_srp over siw logs in)
 * on the worker loops, and an {@link SrpFabric} whose portals look targets up in the registry by
 * the SRP target port identifier of their {@code srp:} key. Its registered memory is the buffer
 * pool's pinned arena, which SRP therefore requires.
 */
final class SrpFabricRuntime {

    private final SrpFabric fabric;
    private final Supplier<TargetRegistry> registry;

    private SrpFabricRuntime(SrpFabric fabric, Supplier<TargetRegistry> registry) {
        this.fabric = fabric;
        this.registry = registry;
    }

    /** The fabric itself (its channels' and portals' counters, for the metrics endpoint). */
    SrpFabric fabric() {
        return fabric;
    }

    /**
     * @param registry the live registry (null once the daemon stops: logins then find no target)
     * @throws IllegalStateException if the pool has no pinned arena
     * @throws RdmaException         if the arena cannot be registered
     */
    static SrpFabricRuntime start(BufferPool pool, EventLoopGroup workers, Supplier<TargetRegistry> registry)
            throws RdmaException {
        if (pool.pinnedArena() == null) {
            throw new IllegalStateException("SRP needs a pinned arena: set daemon.buffer-pool.pinned-size above 0");
        }
        TcpDevice device = new TcpDevice("srp-tcp0", TcpDevice.DEFAULT_ATTRIBUTES,
                PinnedMemoryPolicy.withinPinned(pool.pinnedArena()), workers, pool.allocator());
        TcpConnectionManager cm = new TcpConnectionManager(device);
        try {
            return new SrpFabricRuntime(new SrpFabric(device, cm, pool, workers, SrpLimits.defaults()), registry);
        } catch (RdmaException | RuntimeException e) {
            cm.close();
            device.close();
            throw e;
        }
    }

    /** Listens for SRP logins on {@code portal}: the targets that list it, by their SRP target port identifier. */
    void bind(PortalConfig portal) throws RdmaException {
        fabric.bind(portal.name(), new InetSocketAddress(portal.host(), portal.port()), portal.portalGroupTag(),
                targetPortName -> find(portal.name(), targetPortName));
    }

    /** Stops listening for SRP logins on {@code portal}; channels logged in through it stay. */
    void unbind(PortalConfig portal) {
        fabric.unbind(portal.name(), new InetSocketAddress(portal.host(), portal.port()));
    }

    private SrpTarget find(String portalName, String targetPortName) {
        TargetRegistry targets = registry.get();
        if (targets == null) {
            return null;
        }
        for (TargetRegistry.Target t : targets.targets()) {
            SrpTargetSettings srp = t.fabricSettings(SrpTargetSettings.class);
            if (srp != null && srp.targetPortName().equals(targetPortName) && t.reachableThrough(portalName)) {
                return new SrpTarget(t.name(), t.core(), port -> t.core().acl().admits(port));
            }
        }
        return null;
    }

    /**
     * What ends SRP channels a registry change no longer allows: those of a removed target, and
     * those of initiator ports its new ACL does not admit (the iSCSI fabric ends such sessions).
     */
    TargetRegistry.Listener channelEnder() {
        return new TargetRegistry.Listener() {
            @Override
            public void targetRemoved(TargetRegistry.Target target) {
                logout(target, null, "target removed");
            }

            @Override
            public void aclChanged(TargetRegistry.Target target, NodeAcl acl) {
                logout(target, acl::admits, "no longer in its ACL");
            }

            private void logout(TargetRegistry.Target target, Predicate<String> stillAdmitted, String why) {
                SrpTargetSettings srp = target.fabricSettings(SrpTargetSettings.class);
                if (srp != null) {
                    fabric.logoutChannels(srp.targetPortName(), stillAdmitted, why);
                }
            }
        };
    }

    void close(Duration timeout) {
        fabric.close(timeout);
    }
}
