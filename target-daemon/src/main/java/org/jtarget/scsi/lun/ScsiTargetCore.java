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
import org.jtarget.scsi.tmf.TmfCompletion;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SCSI core of one target: its logical units, its node ACL, the command dispatcher and task
 * management. Fabrics talk to it only through {@link TargetCore}.
 *
 * <p>The LUN table and the ACL change at run time, only through {@link TargetRegistry} (the one
 * owner of targets and LUs): every change builds new immutable {@link LunTable}s under this
 * object's monitor and publishes them with one volatile write, so commands on the event loops
 * look their LU up without a lock. LUN changes establish REPORTED LUNS DATA HAS CHANGED (SPC-4
 * 7.8.6 / SAM-5 5.14) for every I_T nexus of the target.
 */
public final class ScsiTargetCore implements TargetCore {

    private final String targetName;
    private final LunIoExecutors executors;
    private final Path stateDir;
    private final CommandDispatcher dispatcher;
    private final TaskManagement taskManagement;
    private final TargetPortGroups portGroups;
    private final LogicalUnitRegistry registry;
    /** The current LUN tables; replaced whole under the monitor, read lock-free by commands. */
    private volatile Luns luns;
    /** The logged-in I_T nexuses (a LU added later must know them for its unit attentions). */
    private final Set<ITNexus> nexuses = ConcurrentHashMap.newKeySet();
    /** Removed LUs whose commands have not all ended yet. */
    private final Set<LogicalUnit> draining = ConcurrentHashMap.newKeySet();

    /**
     * The tables of one moment: every LU, and what each initiator of the ACL sees.
     *
     * @param all          every LU, writable (what a target without LUN mappings shows everyone)
     * @param acl          the node ACL the views were made from
     * @param byInitiator  initiator name (case-insensitive) → its view; null when the ACL maps no LUNs
     * @param others       the view of initiators the ACL does not name ("*" entry), or empty
     */
    private record Luns(LunTable all, NodeAcl acl, Map<String, LunTable> byInitiator, LunTable others) {

        static Luns of(LunTable all, NodeAcl acl) {
            if (acl.mapsNoLuns()) {
                return new Luns(all, acl, null, all);
            }
            Map<String, LunTable> views = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            LunTable others = LunTable.EMPTY;
            for (NodeAcl.Entry e : acl.entries()) {
                LunTable view = e.unrestricted() ? all : all.masked(e.luns(), e.readOnlyLuns());
                if (e.initiator().equals(NodeAcl.ANY_INITIATOR)) {
                    others = view;
                } else {
                    views.put(e.initiator(), view);
                }
            }
            return new Luns(all, acl, views, others);
        }

        LunTable viewOf(ITNexus nexus) {
            if (byInitiator == null || nexus == null) {
                return all;
            }
            LunTable own = byInitiator.get(nexus.initiatorName());
            return own != null ? own : others;
        }
    }

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

    /** Open to every initiator ({@link NodeAcl#ANY}). */
    public ScsiTargetCore(String targetName, List<LogicalUnitDefinition> luns, LunIoExecutors executors,
                          Path stateDir, TargetPortGroups portGroups, LogicalUnitRegistry registry) {
        this(targetName, luns, executors, stateDir, portGroups, registry, NodeAcl.ANY);
    }

    /**
     * @param portGroups the target port groups and their asymmetric access states (SPC-4 5.15),
     *                   shared by every LU of this target; groups it does not list are added,
     *                   active/optimized, when a nexus logs in through them
     * @param registry   the daemon-wide registry of logical units: this target's LUs are added to it
     *                   and EXTENDED COPY finds its copy targets there (any LU of any target)
     * @param acl        who may use the target and which LUNs each initiator sees
     */
    public ScsiTargetCore(String targetName, List<LogicalUnitDefinition> luns, LunIoExecutors executors,
                          Path stateDir, TargetPortGroups portGroups, LogicalUnitRegistry registry, NodeAcl acl) {
        this.targetName = targetName;
        this.executors = executors;
        this.stateDir = stateDir;
        this.portGroups = portGroups;
        this.registry = registry;
        LunTable table = LunTable.EMPTY;
        for (LogicalUnitDefinition d : luns) {
            if (table.get(d.lun()) != null) {
                throw new IllegalArgumentException(targetName + ": LUN " + d.lun() + " defined twice");
            }
            LogicalUnit lu = newLogicalUnit(d);
            table = table.with(lu);
            registry.register(lu);
        }
        this.luns = Luns.of(table, acl);
        this.dispatcher = new CommandDispatcher(this, new CommandTable());
        this.taskManagement = new TaskManagement(this);
    }

    private LogicalUnit newLogicalUnit(LogicalUnitDefinition d) {
        PrStateFile prState = stateDir == null ? null
                : new PrStateFile(stateDir.resolve("pr").resolve(targetName).resolve("lun" + d.lun() + ".pr"));
        return new LogicalUnit(d, executors.forLun(targetName + "/lun" + d.lun()), prState, targetName);
    }

    /** The target's SCSI name. */
    public String targetName() {
        return targetName;
    }

    /** The target port groups (ALUA, SPC-4 5.15) of this target. */
    public TargetPortGroups portGroups() {
        return portGroups;
    }

    /** The node ACL in force. */
    public NodeAcl acl() {
        return luns.acl();
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
            raiseAll(null, SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
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
            raiseAll(from, SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
        }
    }

    private void raiseAll(ITNexus except, SenseReason reason) {
        for (LogicalUnit lu : luns.all().units()) {
            lu.unitAttentions().raiseAllExcept(except, reason);
        }
    }

    /** The daemon-wide logical unit registry (copy targets of EXTENDED COPY). */
    public LogicalUnitRegistry registry() {
        return registry;
    }

    /** The logical unit at {@code lun} (whoever asks), or null. */
    public LogicalUnit logicalUnit(int lun) {
        return luns.all().get(lun);
    }

    /**
     * The LUN table {@code nexus} sees: every LU, or the LUs its ACL entry maps (null nexus:
     * every LU). Lock-free; the hot path's lookup.
     */
    public LunTable lunsOf(ITNexus nexus) {
        return luns.viewOf(nexus);
    }

    /** Every logical unit, by ascending LUN. */
    public LogicalUnit[] logicalUnits() {
        return luns.all().units();
    }

    // ---- changes, made only by TargetRegistry ----

    /** Adds a LU to the live target: every nexus gets REPORTED LUNS DATA HAS CHANGED. */
    synchronized LogicalUnit addLogicalUnit(LogicalUnitDefinition d) {
        Luns now = luns;
        if (now.all().get(d.lun()) != null) {
            throw new IllegalArgumentException(targetName + ": LUN " + d.lun() + " is already mapped");
        }
        LogicalUnit lu = newLogicalUnit(d);
        for (ITNexus n : nexuses) {
            lu.unitAttentions().nexusAdded(n);
            lu.reservations().nexusAdded(n);
        }
        registry.register(lu);
        luns = Luns.of(now.all().with(lu), now.acl());
        raiseAll(null, SenseReason.REPORTED_LUNS_DATA_CHANGED);
        return lu;
    }

    /**
     * Removes LUN {@code lun} from the live target: commands that arrive from now on get LOGICAL
     * UNIT NOT SUPPORTED, commands already in its task set run to their end, and every nexus gets
     * REPORTED LUNS DATA HAS CHANGED on the remaining LUs.
     *
     * @return null if there is no such LUN, else completed with the LU once its last command has
     *         ended (then, and only then, may its store be closed)
     */
    synchronized CompletableFuture<LogicalUnit> removeLogicalUnit(int lun) {
        Luns now = luns;
        LogicalUnit lu = now.all().get(lun);
        if (lu == null) {
            return null;
        }
        luns = Luns.of(now.all().without(lun), now.acl());
        lu.markRemoved(); // a command that found it in the old table refuses itself after joining its task set
        registry.unregister(lu);
        raiseAll(null, SenseReason.REPORTED_LUNS_DATA_CHANGED);
        CompletableFuture<LogicalUnit> drained = new CompletableFuture<>();
        draining.add(lu);
        TmfCompletion lastCommand = new TmfCompletion(() -> {
            draining.remove(lu);
            drained.complete(lu);
        });
        lu.taskSet().awaitAll(lastCommand);
        lastCommand.scanDone();
        return drained;
    }

    /** Replaces the node ACL; commands from now on see the LUNs the new one maps. */
    synchronized void changeAcl(NodeAcl acl) {
        luns = Luns.of(luns.all(), acl);
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
    public synchronized void nexusLoggedIn(ITNexus nexus) {
        portGroups.ensureGroup(nexus.targetPortGroup());
        nexuses.add(nexus);
        for (LogicalUnit lu : logicalUnits()) {
            lu.unitAttentions().nexusAdded(nexus);
            lu.reservations().nexusAdded(nexus);
        }
    }

    @Override
    public synchronized void nexusLoggedOut(ITNexus nexus) {
        nexuses.remove(nexus);
        taskManagement.nexusLost(nexus);
        for (LogicalUnit lu : draining) {
            lu.taskSet().abort(nexus, false, 0, null); // its commands on a removed LU end too
        }
        for (LogicalUnit lu : logicalUnits()) {
            lu.unitAttentions().nexusRemoved(nexus);
            lu.reservations().nexusRemoved(nexus); // releases its SPC-2 reservation
            lu.medium().nexusLost(nexus); // SBC-4 5.15: its medium removal prevention ends
            lu.copyResults().nexusLost(nexus); // SPC-4 6.18.3: held copy status is discarded
        }
    }

    /** Every LUN of the target (whoever asks), ascending. */
    @Override
    public int[] lunNumbers() {
        return luns.all().lunNumbers();
    }
}
