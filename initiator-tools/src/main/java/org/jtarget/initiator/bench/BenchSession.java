package org.jtarget.initiator.bench;

import java.io.IOException;
import java.util.SplittableRandom;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.ScsiSession;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * One session's load loop: keeps up to {@code qd} READ (16)/WRITE (16) commands outstanding over
 * one connection, as far as the transport's flow control lets it ({@link #windowOpen()}: iSCSI's
 * CmdSN window, SRP's request limit), and times each from just before it is sent to its status.
 * This class chooses each command (read or write as the mix says, the next LBA), keeps the queue
 * slots and their clocks and counts the outcomes; a transport ({@link IscsiBenchSession},
 * {@link SrpBenchSession}) sends a slot's command and reports how it ended.
 *
 * <p>A command's tag holds its queue slot in the low 16 bits and a sequence number above, so that
 * a stray answer is recognised ({@link #slotOf}). Nothing here allocates per command.
 */
abstract class BenchSession {

    static final int SLOT_BITS = 16;
    static final int SLOT_MASK = (1 << SLOT_BITS) - 1;

    protected final int index;
    protected final SessionPlan plan;
    private final LbaGenerator lbas;
    private final SplittableRandom mix;
    protected final Payloads payloads;
    private final int[] tags;
    private final long[] sentAt;
    private final long[] lbaOf;
    private final boolean[] writing;
    private final boolean[] busy;
    private final int[] free;
    private final DirectionStats reads = new DirectionStats();
    private final DirectionStats writes = new DirectionStats();
    private RunControl control;
    private int freeCount;
    private int sequence;

    BenchSession(int index, SessionPlan plan) {
        this.index = index;
        this.plan = plan;
        this.lbas = plan.lbas(index);
        this.mix = new SplittableRandom(plan.seed() ^ (0x9E3779B97F4A7C15L * (index + 1)));
        this.payloads = new Payloads(plan.blockBytes(), plan.seed() + index);
        int qd = plan.queueDepth();
        tags = new int[qd];
        sentAt = new long[qd];
        lbaOf = new long[qd];
        writing = new boolean[qd];
        busy = new boolean[qd];
        free = new int[qd];
        for (int slot = 0; slot < qd; slot++) {
            free[freeCount++] = qd - 1 - slot;
        }
    }

    DirectionStats reads() {
        return reads;
    }

    DirectionStats writes() {
        return writes;
    }

    /**
     * Runs on {@code control}'s clock until it or a failure stops issuing, drains, logs out;
     * failures go to {@code control}. Call once, on the session's own thread.
     */
    final void run(RunControl control) {
        this.control = control;
        try {
            loop();
            logout();
        } catch (IOException | RuntimeException e) {
            control.fail(new CliFailure(CliFailure.IO_ERROR, "session " + index + ": " + e));
        } finally {
            close();
        }
    }

    /** Issues and takes answers until {@link #drained()}, the transport's way (blocking or driven). */
    protected abstract void loop() throws IOException;

    /** Ends the session politely, best effort: the numbers are already in. */
    protected abstract void logout() throws IOException;

    /** Closes the connection. */
    protected abstract void close();

    /** Whether the transport lets one more command go now. */
    protected abstract boolean windowOpen();

    /** Sends queue slot {@code slot}'s command: a write or a read of the plan's size at {@code lba}. */
    protected abstract void send(int slot, int tag, boolean write, long lba) throws IOException;

    /**
     * Fills every registered data slot with the payload once, before the clock starts, as an
     * application would hand its own registered buffers over; after a read a slot holds the read's
     * bytes, which the next write sends (bench checks no data).
     */
    protected final void stageDataSlots(int slots, int slotBytes, DataSlots into) {
        if (slots < plan.queueDepth() || slotBytes < plan.blockBytes()) {
            throw new IllegalArgumentException("the connection has " + slots + " data slots of " + slotBytes
                    + " bytes, the plan needs " + plan.queueDepth() + " of " + plan.blockBytes());
        }
        byte[] payload = payloads.of(plan.blockBytes());
        for (int slot = 0; slot < plan.queueDepth(); slot++) {
            into.stage(slot, payload, 0, payload.length);
        }
    }

    /** Where {@link #stageDataSlots} copies the payload. */
    @FunctionalInterface
    interface DataSlots {
        void stage(int slot, byte[] from, int offset, int length);
    }

    /** Fills the queue; true when no more is issued and nothing is outstanding. */
    protected final boolean drained() throws IOException {
        boolean issuing = fill();
        return freeCount == plan.queueDepth() && !issuing;
    }

    /** Sends commands while slots are free, the window allows and the clock runs; returns whether it runs. */
    private boolean fill() throws IOException {
        while (freeCount > 0 && windowOpen()) {
            if (!control.issuing(System.nanoTime())) {
                return false;
            }
            issue(free[--freeCount]);
        }
        return control.issuing(System.nanoTime());
    }

    private void issue(int slot) throws IOException {
        boolean write = plan.readPercent() == 0 || (plan.readPercent() < 100 && mix.nextInt(100) >= plan.readPercent());
        long lba = lbas.next();
        int tag = ((++sequence & 0x7fff) << SLOT_BITS) | slot;
        tags[slot] = tag;
        busy[slot] = true;
        writing[slot] = write;
        lbaOf[slot] = lba;
        sentAt[slot] = System.nanoTime();
        send(slot, tag, write, lba);
    }

    /** The busy slot an answer with {@code tag} is for, or -1 when no outstanding command has that tag. */
    protected final int slotOf(int tag) {
        int slot = tag & SLOT_MASK;
        return slot < tags.length && busy[slot] && tags[slot] == tag ? slot : -1;
    }

    /** Whether the command in {@code slot} is a write. */
    protected final boolean writing(int slot) {
        return writing[slot];
    }

    /** The command in {@code slot} ended GOOD: counted if inside the measured window. */
    protected final void completed(int slot) {
        long now = System.nanoTime();
        if (control.measured(now)) {
            (writing[slot] ? writes : reads).completed(now - sentAt[slot], plan.blockBytes());
        }
        release(slot);
    }

    /** The command in {@code slot} ended with {@code result}, not GOOD: counted, and the run stops. */
    protected final void failed(int slot, ScsiResult result) {
        (writing[slot] ? writes : reads).failed();
        String what = "session " + index + ": " + (writing[slot] ? "WRITE (16)" : "READ (16)") + " at LBA "
                + lbaOf[slot];
        try {
            ScsiSession.check(result, what);
            control.fail(new CliFailure(CliFailure.IO_ERROR, what + " failed"));
        } catch (CliFailure f) {
            control.fail(f);
        }
        release(slot);
    }

    private void release(int slot) {
        busy[slot] = false;
        free[freeCount++] = slot;
    }
}
