package org.jtarget.rdma;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A protection domain, after libibverbs {@code ibv_pd}: it scopes keys, so a queue pair may only use
 * regions of its own domain, locally (lkey) and for its peer (rkey).
 */
public final class ProtectionDomain {

    private final RdmaDevice device;

    ProtectionDomain(RdmaDevice device) {
        this.device = device;
    }

    public RdmaDevice device() {
        return device;
    }

    /**
     * Registers native memory (ibv_reg_mr(3)).
     *
     * @throws RdmaException EINVAL for a heap segment, a segment the device's
     *                       {@link PinnedMemoryPolicy} refuses, or REMOTE_WRITE without LOCAL_WRITE
     */
    public MemoryRegion registerMemoryRegion(MemorySegment segment, Set<AccessFlag> access) throws RdmaException {
        if (!segment.isNative()) {
            throw new RdmaException(Errno.EINVAL, "only native memory can be registered");
        }
        String refusal = device.memoryPolicy().refusal(segment);
        if (refusal != null) {
            throw new RdmaException(Errno.EINVAL, refusal);
        }
        if (access.contains(AccessFlag.REMOTE_WRITE) && !access.contains(AccessFlag.LOCAL_WRITE)) {
            // ibv_reg_mr(3): "If IBV_ACCESS_REMOTE_WRITE is set, IBV_ACCESS_LOCAL_WRITE must be set too."
            throw new RdmaException(Errno.EINVAL, "REMOTE_WRITE requires LOCAL_WRITE");
        }
        return device.regions().register(this, segment, AccessFlag.mask(access));
    }

    /**
     * Registers a handler-backed region of {@code length} bytes (a store endpoint): zero-based, only
     * its rkey is valid, and the provider hands remote accesses to {@code handler} (loopback and tcp
     * both do).
     *
     * @throws RdmaException EINVAL for a length below 1, no handler, or LOCAL_WRITE (nothing local uses it)
     */
    public MemoryRegion registerRemoteAccessRegion(long length, Set<AccessFlag> access, RemoteAccessHandler handler)
            throws RdmaException {
        if (length < 1 || handler == null) {
            throw new RdmaException(Errno.EINVAL, "a handler-backed region needs a handler and a length");
        }
        for (AccessFlag flag : access) {
            if (flag != AccessFlag.REMOTE_READ && flag != AccessFlag.REMOTE_WRITE) {
                throw new RdmaException(Errno.EINVAL, "a handler-backed region grants remote read/write only");
            }
        }
        return device.regions().register(this, handler, length, AccessFlag.mask(access));
    }

    /**
     * Deregisters a region (ibv_dereg_mr(3)); its keys stop working at once.
     *
     * @throws RdmaException EBUSY while posted work requests or a peer's access use it
     */
    public void deregister(MemoryRegion mr) throws RdmaException {
        if (mr.protectionDomain() != this) {
            throw new RdmaException(Errno.EINVAL, "region of another protection domain");
        }
        if (!mr.markDeregistered()) {
            if (mr.isDeregistered()) {
                return;
            }
            throw new RdmaException(Errno.EBUSY, "memory region is in use");
        }
        device.regions().remove(mr);
    }
}
