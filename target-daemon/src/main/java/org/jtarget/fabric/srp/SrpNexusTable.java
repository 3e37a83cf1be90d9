package org.jtarget.fabric.srp;

import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.TargetCore;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The I_T nexuses of one SRP fabric and the channels of each (SRP r16a 5.3: one initiator port and
 * one target port; a nexus may have several RDMA channels). The MULTI-CHANNEL ACTION of a login
 * decides what happens to channels the nexus has already: 0 (single) logs them out and the nexus
 * starts over, 1 (multiple independent channels) adds the new one beside them. The core hears of a
 * nexus when its first channel joins (before the accept, so before any command) and when its last
 * one is gone.
 * Called from the connection manager's thread (logins) and the channels' loops (ends).
 */
final class SrpNexusTable {

    /** SRP_LOGIN_RSP MULTI-CHANNEL RESULT (r16a table 13). */
    static final int NO_EXISTING_CHANNELS = 0;
    static final int EXISTING_TERMINATED = 1;
    static final int EXISTING_MAINTAINED = 2;

    private final Map<ITNexus, Entry> entries = new HashMap<>();

    /** One nexus: its core and channels. A new login with single-channel action replaces the entry. */
    private static final class Entry {
        final TargetCore core;
        final List<SrpChannel> channels = new ArrayList<>();

        Entry(TargetCore core) {
            this.core = core;
        }
    }

    /** What a login did to the nexus: the result to report and the channels to log out. */
    record Joined(int multiChannelResult, List<SrpChannel> terminated, boolean newNexus) {
    }

    /**
     * Adds {@code channel} to {@code nexus}: with {@code multiple} beside its channels, else in place
     * of them (the caller logs those out; the core drops the old nexus before it sees the new one).
     */
    synchronized Joined join(ITNexus nexus, TargetCore core, SrpChannel channel, boolean multiple) {
        Entry entry = entries.get(nexus);
        if (entry != null && multiple) {
            entry.channels.add(channel);
            return new Joined(EXISTING_MAINTAINED, List.of(), false);
        }
        List<SrpChannel> terminated = entry == null ? List.of() : List.copyOf(entry.channels);
        if (entry != null) {
            entry.core.nexusLoggedOut(nexus);
        }
        Entry fresh = new Entry(core);
        fresh.channels.add(channel);
        entries.put(nexus, fresh);
        core.nexusLoggedIn(nexus); // before the channel's first command
        return new Joined(terminated.isEmpty() ? NO_EXISTING_CHANNELS : EXISTING_TERMINATED, terminated, true);
    }

    /** The channel is gone; if it was its nexus's last, the core drops the nexus (its commands are aborted). */
    synchronized void leave(ITNexus nexus, SrpChannel channel) {
        Entry entry = entries.get(nexus);
        if (entry == null || !entry.channels.remove(channel)) {
            return; // a channel of a nexus that a single-channel login replaced
        }
        if (entry.channels.isEmpty()) {
            entries.remove(nexus);
            entry.core.nexusLoggedOut(nexus);
        }
    }

    /** The channels of the nexuses {@code which} accepts. */
    synchronized List<SrpChannel> channelsOf(java.util.function.Predicate<ITNexus> which) {
        List<SrpChannel> found = new ArrayList<>();
        for (Map.Entry<ITNexus, Entry> e : entries.entrySet()) {
            if (which.test(e.getKey())) {
                found.addAll(e.getValue().channels);
            }
        }
        return found;
    }

    /** Channels of every nexus (for shutdown). */
    synchronized List<SrpChannel> channels() {
        List<SrpChannel> all = new ArrayList<>();
        for (Entry e : entries.values()) {
            all.addAll(e.channels);
        }
        return all;
    }
}
