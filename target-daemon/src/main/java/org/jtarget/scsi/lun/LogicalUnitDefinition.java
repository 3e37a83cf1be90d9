package org.jtarget.scsi.lun;

import io.netty.buffer.ByteBufAllocator;
import org.jtarget.backstore.spi.Backstore;

/**
 * How a target exposes one store.
 *
 * @param lun       the LUN number (0..16383, SAM-5 4.7.7 flat/peripheral addressing)
 * @param store     the backing store (the LU does not close it)
 * @param readOnly  refuse writes with DATA PROTECT / WRITE PROTECTED (also if the store is read-only)
 * @param removable report RMB in INQUIRY (SPC-4 6.4.2)
 * @param sanitizeBytesPerSecond how fast SANITIZE OVERWRITE may write; 0 = as fast as the store goes
 * @param ioAllocator where READ data buffers for this store come from ({@code BufferPool.ioAllocator()}:
 *                    page-aligned pinned-arena buffers that O_DIRECT stores use in place), or null
 *                    for the command's own allocator (the fabric's pooled one)
 * @param queueDepth commands of this LU admitted at once, from every nexus (config key
 *                   {@code queue-depth}, see {@link LunQueueDepth}); more are parked in arrival
 *                   order; 0 = no limit
 */
public record LogicalUnitDefinition(int lun, Backstore store, boolean readOnly, boolean removable,
                                    long sanitizeBytesPerSecond, ByteBufAllocator ioAllocator, int queueDepth) {

    /** Without a queue depth (tests, tools). */
    public LogicalUnitDefinition(int lun, Backstore store, boolean readOnly, boolean removable,
                                 long sanitizeBytesPerSecond, ByteBufAllocator ioAllocator) {
        this(lun, store, readOnly, removable, sanitizeBytesPerSecond, ioAllocator, 0);
    }

    /** READ buffers from the command's allocator, no queue depth. */
    public LogicalUnitDefinition(int lun, Backstore store, boolean readOnly, boolean removable,
                                 long sanitizeBytesPerSecond) {
        this(lun, store, readOnly, removable, sanitizeBytesPerSecond, null);
    }

    /** An LU whose sanitize is not paced (tests, tools). */
    public LogicalUnitDefinition(int lun, Backstore store, boolean readOnly, boolean removable) {
        this(lun, store, readOnly, removable, 0);
    }

    public LogicalUnitDefinition {
        if (lun < 0 || lun > 16383) {
            throw new IllegalArgumentException("LUN out of range 0..16383: " + lun);
        }
        if (store == null) {
            throw new IllegalArgumentException("LUN " + lun + ": store is null");
        }
        if (queueDepth < 0) {
            throw new IllegalArgumentException("LUN " + lun + ": queue depth < 0: " + queueDepth);
        }
    }
}
