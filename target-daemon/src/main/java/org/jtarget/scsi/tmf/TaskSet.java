package org.jtarget.scsi.tmf;

import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ScsiCommand;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The in-flight commands of one logical unit (SAM-5 4.6 task set), for task management. A slot
 * array with a free-slot stack: adding and removing a command allocates nothing once the array
 * has grown to the LU's working depth. Several event loops use one LU, so access is locked; the
 * lock is held for a few instructions per command.
 */
public final class TaskSet {

    private CommandContext[] slots = new CommandContext[64];
    private int[] freeStack = new int[64];
    private int freeTop;
    private int highWater;
    private int size;

    /** Adds a command that entered the LU's task set. */
    public synchronized void add(CommandContext ctx) {
        int slot;
        if (freeTop > 0) {
            slot = freeStack[--freeTop];
        } else {
            if (highWater == slots.length) {
                slots = Arrays.copyOf(slots, slots.length * 2);
                freeStack = Arrays.copyOf(freeStack, freeStack.length * 2);
            }
            slot = highWater++;
        }
        slots[slot] = ctx;
        ctx.taskSlot(slot);
        size++;
    }

    /**
     * Removes an ending command.
     *
     * @return the task management functions waiting for it, or null
     */
    public synchronized List<TmfCompletion> remove(CommandContext ctx) {
        int slot = ctx.taskSlot();
        if (slot >= 0 && slots[slot] == ctx) {
            slots[slot] = null;
            freeStack[freeTop++] = slot;
            ctx.taskSlot(-1);
            size--;
        }
        return ctx.takeWaiters();
    }

    /** Number of commands in the task set. */
    public synchronized int size() {
        return size;
    }

    /**
     * Makes {@code waiter} wait for every command now in the task set, without aborting them (a
     * LU being removed: its store is closed after the last one ends).
     */
    public synchronized void awaitAll(TmfCompletion waiter) {
        for (int i = 0; i < highWater; i++) {
            if (slots[i] != null) {
                waiter.expectTask();
                slots[i].addWaiter(waiter);
            }
        }
    }

    /**
     * Marks matching commands aborted and makes {@code waiter} wait for each of them. Every
     * aborted command is then ended by the dispatcher on its own event loop.
     *
     * @param nexus only this nexus's commands, or null for all
     * @param byTag only the command whose tag is {@code tag}
     * @return the nexuses whose commands were aborted (for COMMANDS CLEARED BY ANOTHER INITIATOR)
     */
    public Set<ITNexus> abort(ITNexus nexus, boolean byTag, long tag, TmfCompletion waiter) {
        Set<ITNexus> affected = new HashSet<>();
        CommandContext[] toEnd;
        int n = 0;
        synchronized (this) {
            toEnd = new CommandContext[size];
            for (int i = 0; i < highWater; i++) {
                CommandContext ctx = slots[i];
                if (ctx == null || !matches(ctx.cmd(), nexus, byTag, tag)) {
                    continue;
                }
                ctx.cmd().markAborted();
                if (waiter != null) {
                    waiter.expectTask();
                    ctx.addWaiter(waiter);
                }
                affected.add(ctx.cmd().nexus());
                toEnd[n++] = ctx;
            }
            for (int i = 0; i < n; i++) {
                // capture the loop and generation while the command is still bound
                toEnd[i].dispatcher().scheduleAbort(toEnd[i]);
            }
        }
        return affected;
    }

    private static boolean matches(ScsiCommand cmd, ITNexus nexus, boolean byTag, long tag) {
        if (nexus != null && !nexus.equals(cmd.nexus())) {
            return false;
        }
        return !byTag || cmd.tag() == tag;
    }
}
