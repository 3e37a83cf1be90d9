package org.jtarget.fabric.iscsi.session;

import io.netty.util.collection.IntObjectHashMap;

/**
 * The session-wide command numbering window (RFC 7143 4.2.2.1): ExpCmdSN, MaxCmdSN and the
 * out-of-order queue of non-immediate commands whose CmdSN is ahead of ExpCmdSN (several
 * connections may deliver them out of order). Commands are delivered in CmdSN order.
 *
 * <p>Back-pressure: a delivered command holds a slot of the window until it completes, so
 * {@code MaxCmdSN = ExpCmdSN - 1 + window - inFlight}; MaxCmdSN never decreases (delivery moves
 * ExpCmdSN and inFlight up together, completion moves inFlight down). Comparisons use serial
 * number arithmetic (RFC 1982, 32 bits). Single-threaded: used on the session's event loop only.
 *
 * <p>Logical unit queue depth: while any of the session's commands is parked by the core (its
 * LU is at its queue depth, {@code FabricOps.commandParked}), the window is <em>held</em>:
 * MaxCmdSN stays where it was when the first one was parked, whatever completes meanwhile, so an
 * initiator feeding a saturated LU runs out of CmdSNs instead of filling target memory. When the
 * last parked command is admitted (or ended) MaxCmdSN jumps to what completions have freed (it
 * never decreases either way).
 *
 * @param <T> what is queued for later delivery
 */
final class CmdSnWindow<T> {

    /** What to do with a non-immediate command's CmdSN. */
    enum Verdict {
        /** CmdSN == ExpCmdSN: deliver now (then {@link #pollNext()} for queued successors). */
        DELIVER,
        /** Inside the window but ahead of ExpCmdSN: queued. */
        QUEUED,
        /** Outside the window (or a duplicate): RFC 7143 4.2.2.1 says silently ignore it. */
        IGNORE
    }

    private final int window;
    private final IntObjectHashMap<T> waiting = new IntObjectHashMap<>();
    private int expCmdSn;
    private int inFlight;
    /** Commands of this session parked by the core. */
    private int held;
    /** MaxCmdSN when {@code held} went from 0 to 1. */
    private int heldMaxCmdSn;

    CmdSnWindow(int expCmdSn, int window) {
        this.expCmdSn = expCmdSn;
        this.window = Math.max(1, window);
    }

    static boolean serialLess(int a, int b) {
        return a - b < 0;
    }

    int expCmdSn() {
        return expCmdSn;
    }

    int maxCmdSn() {
        int open = openMaxCmdSn();
        return held > 0 && serialLess(heldMaxCmdSn, open) ? heldMaxCmdSn : open;
    }

    /** MaxCmdSN from the slots alone; never decreases (delivery and completion see to it). */
    private int openMaxCmdSn() {
        return expCmdSn - 1 + window - inFlight;
    }

    /** How many commands the window admits past ExpCmdSN - 1 (the negotiated command window). */
    int size() {
        return window;
    }

    /** The core parked a command of the session (LU queue depth): MaxCmdSN stops advancing. */
    void hold() {
        if (held++ == 0) {
            heldMaxCmdSn = openMaxCmdSn();
        }
    }

    /** A parked command was admitted (or ended); after the last one MaxCmdSN moves on. */
    void unhold() {
        if (held > 0) {
            held--;
        }
    }

    /** Commands of the session parked by the core. */
    int held() {
        return held;
    }

    /** Commands delivered (or queued) that still hold a window slot. */
    int inFlight() {
        return inFlight;
    }

    /** True if {@code cmdSn} lies in [ExpCmdSN, MaxCmdSN]. */
    boolean inWindow(int cmdSn) {
        return !serialLess(cmdSn, expCmdSn) && !serialLess(maxCmdSn(), cmdSn);
    }

    /**
     * Classifies a non-immediate command; on DELIVER the window has already advanced and the
     * command holds a slot; on QUEUED the caller must {@link #enqueue} it (so the in-order
     * path allocates nothing).
     */
    Verdict offer(int cmdSn) {
        if (!inWindow(cmdSn) || waiting.containsKey(cmdSn)) {
            return Verdict.IGNORE;
        }
        if (cmdSn == expCmdSn) {
            expCmdSn++;
            inFlight++;
            return Verdict.DELIVER;
        }
        return Verdict.QUEUED;
    }

    /** Keeps a command that {@link #offer} classified as QUEUED until its turn. */
    void enqueue(int cmdSn, T item) {
        waiting.put(cmdSn, item);
    }

    /**
     * The queued command whose turn it is now (the window advances and it holds a slot), or
     * null. A {@code null} item stored by {@link #consume} is skipped transparently.
     */
    T pollNext() {
        while (waiting.containsKey(expCmdSn)) {
            T item = waiting.remove(expCmdSn);
            expCmdSn++;
            if (item != null) {
                inFlight++;
                return item;
            }
        }
        return null;
    }

    /** True if a command with that CmdSN is queued. */
    boolean isQueued(int cmdSn) {
        return waiting.get(cmdSn) != null;
    }

    /**
     * Removes a queued command or, for a CmdSN inside the window that never arrived, marks it as
     * received so the window can move past it (RFC 7143 11.5.1, ABORT TASK of a task not yet
     * received). Returns the removed item, or null.
     */
    T consume(int cmdSn) {
        T item = waiting.remove(cmdSn);
        if (cmdSn == expCmdSn) {
            expCmdSn++;
        } else if (inWindow(cmdSn)) {
            waiting.put(cmdSn, null);
        }
        return item;
    }

    /** A delivered non-immediate command finished: its slot frees and MaxCmdSN moves on. */
    void completed() {
        if (inFlight > 0) {
            inFlight--;
        }
    }

    /**
     * Takes out the queued items that match (their connection went away) and leaves their
     * CmdSNs marked as received, so commands behind them on other connections still flow.
     */
    java.util.List<T> removeMatching(java.util.function.Predicate<T> match) {
        java.util.List<T> removed = new java.util.ArrayList<>();
        for (IntObjectHashMap.PrimitiveEntry<T> e : waiting.entries()) {
            if (e.value() != null && match.test(e.value())) {
                removed.add(e.value());
                e.setValue(null);
            }
        }
        return removed;
    }

    /** Takes every queued item out (connection or session teardown). */
    Iterable<T> drain() {
        java.util.List<T> items = new java.util.ArrayList<>(waiting.size());
        for (T item : waiting.values()) {
            if (item != null) {
                items.add(item);
            }
        }
        waiting.clear();
        return items;
    }
}
