package org.jtarget.initiator.bench;

import java.util.SplittableRandom;

/**
 * Where the next command of one session goes: the region {@code [firstLba, firstLba + blocks)} is
 * cut into {@code blocks / ioBlocks} slots of one command each (a tail shorter than a command is
 * never touched), and every LBA returned is {@code firstLba + k * ioBlocks}, so commands stay
 * inside the region and aligned to the block size from its start. Sequential generators walk the
 * slots in order from {@code startSlot} and wrap around; random ones draw a slot uniformly.
 * No allocation per call; not thread-safe (one per session).
 */
public final class LbaGenerator {

    private final long firstLba;
    private final int ioBlocks;
    private final long slots;
    private final SplittableRandom random;
    private long next;

    /**
     * @param random    a seeded source for random access, or {@code null} for sequential
     * @param startSlot where a sequential walk begins (taken modulo the slot count)
     * @throws IllegalArgumentException if the region holds not even one command
     */
    public LbaGenerator(long firstLba, long blocks, int ioBlocks, SplittableRandom random, long startSlot) {
        if (ioBlocks <= 0 || blocks < ioBlocks || firstLba < 0) {
            throw new IllegalArgumentException("a region of " + blocks + " blocks at LBA " + firstLba
                    + " holds no command of " + ioBlocks + " blocks");
        }
        this.firstLba = firstLba;
        this.ioBlocks = ioBlocks;
        this.slots = blocks / ioBlocks;
        this.random = random;
        this.next = Math.floorMod(startSlot, slots);
    }

    /** The LBA of the next command. */
    public long next() {
        long slot;
        if (random != null) {
            slot = random.nextLong(slots);
        } else {
            slot = next;
            next = next + 1 == slots ? 0 : next + 1;
        }
        return firstLba + slot * ioBlocks;
    }

    /** How many distinct command positions the region has. */
    public long slots() {
        return slots;
    }
}
