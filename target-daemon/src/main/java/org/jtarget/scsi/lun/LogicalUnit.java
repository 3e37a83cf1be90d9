package org.jtarget.scsi.lun;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.copy.CopyResults;
import org.jtarget.scsi.pr.PrStateFile;
import org.jtarget.scsi.pr.Reservations;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spc.ModeParameters;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.tmf.TaskSet;
import org.jtarget.scsi.ua.UnitAttentions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One logical unit (SAM-5 4.5): a store plus what the core emulates on top of it: identity,
 * mode parameters, unit attentions, reservations, the task set of in-flight commands and the
 * queue depth that admits or parks them.
 */
public final class LogicalUnit {

    private static final Logger LOG = LoggerFactory.getLogger(LogicalUnit.class);

    private final LogicalUnitDefinition definition;
    /** The store's geometry as the LU reports it; replaced only after the store grew (see {@link #capacityChanged}). */
    private volatile BackstoreInfo info;
    private final LuIdentity identity;
    private final Executor ioExecutor;
    private final ModeParameters modes;
    private final UnitAttentions unitAttentions = new UnitAttentions();
    private final TaskSet taskSet = new TaskSet();
    private final LbaRangeLock rangeLock = new LbaRangeLock();
    private final Reservations reservations;
    /** The persistent reservations and mode parameters as an HA pair keeps them on both nodes, or null. */
    private final UnitStateReplica reservationReplica;
    private final UnitStateReplica modeReplica;
    /** Admission of this LU's commands, or null if it has no queue depth. */
    private final LunQueueDepth queueDepth;
    private final MediumState medium = new MediumState();
    private final LuStatistics statistics = new LuStatistics();
    private final CopyResults copyResults = new CopyResults();
    private final Set<WorkProgress> work = ConcurrentHashMap.newKeySet();
    private final String targetName;
    /** Set when the LU leaves its target's LUN table (TargetRegistry.removeLun). */
    private volatile boolean removed;
    /** One bit per StoreException.Kind already logged at WARN. */
    private final AtomicInteger faultsLogged = new AtomicInteger();

    /**
     * @param definition LUN, store and flags
     * @param ioExecutor where blocking store calls run (see {@code org.jtarget.io.LunIoExecutors});
     *                   unused when the store is non-blocking
     */
    public LogicalUnit(LogicalUnitDefinition definition, Executor ioExecutor) {
        this(definition, ioExecutor, null);
    }

    /**
     * @param prState where persistent reservations are kept through power loss (APTPL), or null
     *                if this LU does not offer it (PTPL_C = 0)
     */
    public LogicalUnit(LogicalUnitDefinition definition, Executor ioExecutor, PrStateFile prState) {
        this(definition, ioExecutor, prState, null);
    }

    /** @param targetName the target this LU belongs to (for the operator's log lines), or null */
    public LogicalUnit(LogicalUnitDefinition definition, Executor ioExecutor, PrStateFile prState, String targetName) {
        this.targetName = targetName;
        this.definition = definition;
        this.info = definition.store().info();
        this.identity = LuIdentity.fromSeed(info.identitySeed());
        this.ioExecutor = ioExecutor;
        this.modes = new ModeParameters(info.writeCacheEnabled());
        this.reservations = new Reservations(unitAttentions, prState);
        org.jtarget.backstore.spi.ReplicatedState replicated = definition.store().replicatedState();
        if (replicated != null) {
            // keyed by target and LUN, the same on both nodes of the pair (their configs match)
            String key = (targetName == null ? "" : targetName) + "/lun" + definition.lun();
            this.reservationReplica = new UnitStateReplica(replicated, key + "/pr", reservations::stateRecord,
                    reservations::installStateRecord);
            this.modeReplica = new UnitStateReplica(replicated, key + "/mode", modes::stateRecord,
                    modes::installStateRecord);
        } else {
            this.reservationReplica = null;
            this.modeReplica = null;
        }
        this.queueDepth = definition.queueDepth() > 0 ? new LunQueueDepth(definition.queueDepth()) : null;
    }

    public int lun() { return definition.lun(); }
    public Backstore store() { return definition.store(); }
    public BackstoreInfo info() { return info; }
    public int blockSize() { return info.blockSize(); }
    public long blockCount() { return info.blockCount(); }
    /** True if writes are refused (configured read-only or the store is read-only). */
    public boolean readOnly() { return definition.readOnly() || info.readOnly(); }

    /**
     * Why writes to the medium are refused now, or null: a read-only LU (WRITE PROTECTED) or the
     * control page's software write protect (LOGICAL UNIT SOFTWARE WRITE PROTECTED, SPC-4 7.5.8).
     */
    public SenseReason writeProtection() {
        if (readOnly()) {
            return SenseReason.WRITE_PROTECTED;
        }
        return modes.softwareWriteProtect() ? SenseReason.LOGICAL_UNIT_SOFTWARE_WRITE_PROTECTED : null;
    }
    public boolean removable() { return definition.removable(); }
    /** Bytes per second SANITIZE OVERWRITE may write (0 = unpaced); see SbcSanitize.Job. */
    public long sanitizeBytesPerSecond() { return definition.sanitizeBytesPerSecond(); }
    public LuIdentity identity() { return identity; }

    /**
     * A direct buffer of {@code bytes} for the store to read into: from the LU's I/O allocator
     * (the pinned arena: page-aligned, so O_DIRECT stores read in place) if it has one, else from
     * the command's. The caller owns it (reference count 1); as a command's data-in buffer the
     * command releases it.
     */
    public ByteBuf ioBuffer(ScsiCommand cmd, int bytes) {
        return definition.ioAllocator() != null ? definition.ioAllocator().directBuffer(bytes)
                : cmd.alloc().directBuffer(bytes);
    }
    public Executor ioExecutor() { return ioExecutor; }
    public ModeParameters modes() { return modes; }
    public UnitAttentions unitAttentions() { return unitAttentions; }
    public TaskSet taskSet() { return taskSet; }
    /** How many of this LU's commands are admitted at once (the others are parked), or null: no limit. */
    public LunQueueDepth queueDepth() { return queueDepth; }
    /** SPC-2 and persistent reservations (SPC-4 5.13). */
    public Reservations reservations() { return reservations; }
    /**
     * The persistent reservations as replicated to the HA peer (changes go through it), or null
     * when the LU's store is not an HA pair's.
     */
    public UnitStateReplica reservationReplica() { return reservationReplica; }
    /**
     * True if initiators may set this LU's asymmetric access states (SET TARGET PORT GROUPS,
     * INQUIRY TPGS 11b); false on an HA pair's LU, whose states are the nodes' roles (TPGS 01b).
     */
    public boolean explicitAlua() { return reservationReplica == null; }
    /** The changeable mode parameters as replicated to the HA peer, or null. */
    public UnitStateReplica modeReplica() { return modeReplica; }
    /** Medium present/started, removal prevention, sanitize state (SBC-4 4.11, 4.15, 4.20). */
    public MediumState medium() { return medium; }

    /** What the LU has done: commands, bytes, latency, failures (for the metrics endpoint). */
    public LuStatistics statistics() { return statistics; }
    /**
     * Starts showing a long operation (SANITIZE, EXTENDED COPY) in {@link #work()}; the caller
     * moves it on and ends it with {@link #endWork} however the operation ends.
     */
    public WorkProgress beginWork(String kind, long totalBytes) {
        WorkProgress w = new WorkProgress(kind, totalBytes, System.nanoTime());
        work.add(w);
        return w;
    }

    public void endWork(WorkProgress w) {
        work.remove(w);
    }

    /** The long operations running on this LU now. */
    public List<WorkProgress> work() {
        return List.copyOf(work);
    }

    /** Status of recent EXTENDED COPY commands per I_T nexus (RECEIVE COPY RESULTS, SPC-4 6.18). */
    public CopyResults copyResults() { return copyResults; }
    /** Orders COMPARE AND WRITE / ORWRITE against other commands on overlapping LBAs. */
    public LbaRangeLock rangeLock() { return rangeLock; }

    /**
     * The store grew (a live resize): from now on READ CAPACITY, the Block Limits VPD page and every
     * LBA range check see its new size, and each I_T nexus gets CAPACITY DATA HAS CHANGED (2A/09) so
     * that its initiator reads the capacity again. Called after the store has grown, so a command
     * that passes the new range check always finds the blocks; commands already checked against
     * the old size stay inside it.
     */
    public void capacityChanged() {
        BackstoreInfo grown = definition.store().info();
        if (grown.blockCount() == info.blockCount()) {
            return;
        }
        info = grown;
        unitAttentions.raiseAll(SenseReason.CAPACITY_DATA_HAS_CHANGED);
        LOG.info("{}: capacity now {} blocks of {} bytes", displayName(), grown.blockCount(), grown.blockSize());
    }

    /** The LU has been removed from its target: commands that still find it are refused. */
    void markRemoved() {
        removed = true;
        if (reservationReplica != null) {
            reservationReplica.close();
            modeReplica.close();
        }
    }

    /**
     * True once the LU was removed from its target. The dispatcher reads it after the command
     * joined the task set (under its lock), so a command either is waited for by the removal or
     * sees the flag and never touches the store.
     */
    public boolean removed() {
        return removed;
    }

    /** "target T LUN n" for log lines. */
    public String displayName() {
        return targetName == null ? "LUN " + lun() : "target " + targetName + " LUN " + lun();
    }

    /**
     * The backing store is gone (its file deleted or replaced: {@code where} says which): the LU
     * goes offline, every medium-access command and TEST UNIT READY get NOT READY / LOGICAL UNIT
     * NOT READY, CAUSE NOT REPORTABLE, while INQUIRY, REPORT LUNS, REQUEST SENSE and the other LUs
     * keep working. Logged once, at ERROR, for the operator. Any thread.
     *
     * @return true if this call took the LU offline
     */
    public boolean takeOffline(String where) {
        if (!medium.goOffline()) {
            return false;
        }
        LOG.error("{}: backstore {} is gone ({}); the LU is offline: medium access gets NOT READY until the daemon "
                + "is restarted with the file back in place", displayName(), store().name(), where);
        return true;
    }

    /**
     * A store error other than a vanished medium (no space, EIO): WARN the first time each kind
     * happens on this LU, DEBUG after, so a failing disk cannot flood the log. Any thread.
     */
    public void storeFault(StoreException.Kind kind, String message) {
        int bit = 1 << kind.ordinal();
        int seen;
        do {
            seen = faultsLogged.get();
        } while ((seen & bit) == 0 && !faultsLogged.compareAndSet(seen, seen | bit));
        if ((seen & bit) == 0) {
            LOG.warn("{}: backstore {}: {} (further {} errors on this LU are logged at DEBUG)", displayName(),
                    store().name(), message, kind);
        } else {
            LOG.debug("{}: backstore {}: {}", displayName(), store().name(), message);
        }
    }
}
