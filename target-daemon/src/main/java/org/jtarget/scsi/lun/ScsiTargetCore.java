package org.jtarget.scsi.lun;

import org.jtarget.io.LunIoExecutors;
import org.jtarget.scsi.alua.AluaState;
import org.jtarget.scsi.alua.TargetPortGroups;
import org.jtarget.scsi.dispatch.CommandDispatcher;
import org.jtarget.scsi.dispatch.CommandTable;
import org.jtarget.scsi.pr.PrStateFile;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.TargetCore;
import org.jtarget.scsi.spi.TmfRequest;
import org.jtarget.scsi.tmf.TaskManagement;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The SCSI core of one target: its logical units, the command dispatcher and task management.
 * Fabrics talk to it only through {@link TargetCore}.
 */
public final class ScsiTargetCore implements TargetCore {

    private final String targetName;
    private final LogicalUnit[] byLun;
    private final int[] lunNumbers;
    private final CommandDispatcher dispatcher;
    private final TaskManagement taskManagement;
    private final TargetPortGroups portGroups;
    private final LogicalUnitRegistry registry;

    /**
     * @param targetName the target's SCSI name (e.g. the IQN), reported in VPD 83h
     * @param luns       the logical units (distinct LUN numbers)
     * @param executors  gives each LU its I/O executor (stores with isNonBlocking() never use it)
     */
    public ScsiTargetCore(String targetName, List<LogicalUnitDefinition> luns, LunIoExecutors executors) {
        this(targetName, luns, executors, null);
    }

    /**
     * @param stateDir the daemon's state directory: persistent reservations with APTPL live in
     *                 {@code <stateDir>/pr/<targetName>/lun<N>.pr}; null = not offered (PTPL_C = 0)
     */
    public ScsiTargetCore(String targetName, List<LogicalUnitDefinition> luns, LunIoExecutors executors,
                          Path stateDir) {
        this(targetName, luns, executors, stateDir, new TargetPortGroups(), new LogicalUnitRegistry());
    }

    /** With these target port groups (ALUA) and a registry of its own. */
    public ScsiTargetCore(String targetName, List<LogicalUnitDefinition> luns, LunIoExecutors executors,
                          Path stateDir, TargetPortGroups portGroups) {
        this(targetName, luns, executors, stateDir, portGroups, new LogicalUnitRegistry());
    }

    /** Joining a shared registry of logical units, with the default target port groups. */
    public ScsiTargetCore(String targetName, List<LogicalUnitDefinition> luns, LunIoExecutors executors,
                          Path stateDir, LogicalUnitRegistry registry) {
        this(targetName, luns, executors, stateDir, new TargetPortGroups(), registry);
    }

    /**
     * @param portGroups the target port groups and their asymmetric access states (SPC-4 5.15),
     *                   shared by every LU of this target; groups it does not list are added,
     *                   active/optimized, when a nexus logs in through them
     * @param registry   the daemon-wide registry of logical units: this target's LUs are added to it
     *                   and EXTENDED COPY finds its copy targets there (any LU of any target)
     */
    public ScsiTargetCore(String targetName, List<LogicalUnitDefinition> luns, LunIoExecutors executors,
                          Path stateDir, TargetPortGroups portGroups, LogicalUnitRegistry registry) {
        this.targetName = targetName;
        this.portGroups = portGroups;
        this.registry = registry;
        int max = -1;
        for (LogicalUnitDefinition d : luns) {
            max = Math.max(max, d.lun());
        }
        this.byLun = new LogicalUnit[max + 1];
        for (LogicalUnitDefinition d : luns) {
            if (byLun[d.lun()] != null) {
                throw new IllegalArgumentException(targetName + ": LUN " + d.lun() + " defined twice");
            }
            PrStateFile prState = stateDir == null ? null
                    : new PrStateFile(stateDir.resolve("pr").resolve(targetName).resolve("lun" + d.lun() + ".pr"));
            byLun[d.lun()] = new LogicalUnit(d, executors.forLun(targetName + "/lun" + d.lun()), prState, targetName);
            registry.register(byLun[d.lun()]);
        }
        this.lunNumbers = luns.stream().mapToInt(LogicalUnitDefinition::lun).sorted().toArray();
        this.dispatcher = new CommandDispatcher(this, new CommandTable());
        this.taskManagement = new TaskManagement(this);
    }

    /** The target's SCSI name. */
    public String targetName() {
        return targetName;
    }

    /** The target port groups (ALUA, SPC-4 5.15) of this target. */
    public TargetPortGroups portGroups() {
        return portGroups;
    }

    /**
     * An implicit asymmetric access state change (SPC-4 5.15.2.2: made by the target, e.g. by an
     * administrator or a failover), the entry point of the management and HA layers: group
     * {@code groupId} moves to {@code state} (STATUS CODE 02h) and every I_T nexus of every LU
     * gets ASYMMETRIC ACCESS STATE CHANGED (SPC-4 5.15.2.6). Any thread.
     *
     * @return false if the target has no such group
     */
    public synchronized boolean changeAluaState(int groupId, AluaState state) {
        org.jtarget.scsi.alua.TargetPortGroup before = portGroups.group(groupId);
        if (before == null) {
            return false;
        }
        portGroups.changeState(groupId, state, false);
        if (before.state() != state) {
            raiseAccessStateChanged(null);
        }
        return true;
    }

    /**
     * Explicit changes from SET TARGET PORT GROUPS (SPC-4 6.31), already validated: every group
     * {@code ids[i]} moves to {@code states[i]} (STATUS CODE 01h); if any changed, every I_T nexus
     * but {@code from} gets ASYMMETRIC ACCESS STATE CHANGED (SPC-4 5.15.2.6).
     */
    public synchronized void setTargetPortGroupStates(ITNexus from, int[] ids, AluaState[] states) {
        boolean changed = false;
        for (int i = 0; i < ids.length; i++) {
            changed |= portGroups.group(ids[i]).state() != states[i];
            portGroups.changeState(ids[i], states[i], true);
        }
        if (changed) {
            raiseAccessStateChanged(from);
        }
    }

    private void raiseAccessStateChanged(ITNexus except) {
        for (int lun : lunNumbers) {
            byLun[lun].unitAttentions().raiseAllExcept(except, SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
        }
    }

    /** The daemon-wide logical unit registry (copy targets of EXTENDED COPY). */
    public LogicalUnitRegistry registry() {
        return registry;
    }

    /** The logical unit at {@code lun}, or null. */
    public LogicalUnit logicalUnit(int lun) {
        return lun >= 0 && lun < byLun.length ? byLun[lun] : null;
    }

    /** Every logical unit, by ascending LUN. */
    public LogicalUnit[] logicalUnits() {
        LogicalUnit[] r = new LogicalUnit[lunNumbers.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = byLun[lunNumbers[i]];
        }
        return r;
    }

    @Override
    public void submit(ScsiCommand cmd) {
        dispatcher.submit(cmd);
    }

    @Override
    public void dataOutComplete(ScsiCommand cmd) {
        dispatcher.dataOutComplete(cmd);
    }

    @Override
    public void submitTmf(TmfRequest tmf) {
        taskManagement.submit(tmf);
    }

    @Override
    public void nexusLoggedIn(ITNexus nexus) {
        portGroups.ensureGroup(nexus.targetPortGroup());
        for (int lun : lunNumbers) {
            byLun[lun].unitAttentions().nexusAdded(nexus);
            byLun[lun].reservations().nexusAdded(nexus);
        }
    }

    @Override
    public void nexusLoggedOut(ITNexus nexus) {
        taskManagement.nexusLost(nexus);
        for (int lun : lunNumbers) {
            byLun[lun].unitAttentions().nexusRemoved(nexus);
            byLun[lun].reservations().nexusRemoved(nexus); // releases its SPC-2 reservation
            byLun[lun].medium().nexusLost(nexus); // SBC-4 5.15: its medium removal prevention ends
            byLun[lun].copyResults().nexusLost(nexus); // SPC-4 6.18.3: held copy status is discarded
        }
    }

    @Override
    public int[] lunNumbers() {
        return Arrays.copyOf(lunNumbers, lunNumbers.length);
    }
}
