package org.jtarget.scsi.lun;

import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.scsi.copy.CopyResults;
import org.jtarget.scsi.pr.PrStateFile;
import org.jtarget.scsi.pr.Reservations;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spc.ModeParameters;
import org.jtarget.scsi.tmf.TaskSet;
import org.jtarget.scsi.ua.UnitAttentions;

import java.util.concurrent.Executor;

/**
 * One logical unit (SAM-5 4.5): a store plus what the core emulates on top of it: identity,
 * mode parameters, unit attentions, reservations, and the task set of in-flight commands.
 */
public final class LogicalUnit {

    private final LogicalUnitDefinition definition;
    private final BackstoreInfo info;
    private final LuIdentity identity;
    private final Executor ioExecutor;
    private final ModeParameters modes;
    private final UnitAttentions unitAttentions = new UnitAttentions();
    private final TaskSet taskSet = new TaskSet();
    private final LbaRangeLock rangeLock = new LbaRangeLock();
    private final Reservations reservations;
    private final MediumState medium = new MediumState();
    private final CopyResults copyResults = new CopyResults();

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
        this.definition = definition;
        this.info = definition.store().info();
        this.identity = LuIdentity.fromSeed(info.identitySeed());
        this.ioExecutor = ioExecutor;
        this.modes = new ModeParameters(info.writeCacheEnabled());
        this.reservations = new Reservations(unitAttentions, prState);
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
    public LuIdentity identity() { return identity; }
    public Executor ioExecutor() { return ioExecutor; }
    public ModeParameters modes() { return modes; }
    public UnitAttentions unitAttentions() { return unitAttentions; }
    public TaskSet taskSet() { return taskSet; }
    /** SPC-2 and persistent reservations (SPC-4 5.13). */
    public Reservations reservations() { return reservations; }
    /** Medium present/started, removal prevention, sanitize state (SBC-4 4.11, 4.15, 4.20). */
    public MediumState medium() { return medium; }
    /** Status of recent EXTENDED COPY commands per I_T nexus (RECEIVE COPY RESULTS, SPC-4 6.18). */
    public CopyResults copyResults() { return copyResults; }
    /** Orders COMPARE AND WRITE / ORWRITE against other commands on overlapping LBAs. */
    public LbaRangeLock rangeLock() { return rangeLock; }
}
