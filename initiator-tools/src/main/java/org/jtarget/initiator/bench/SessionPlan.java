package org.jtarget.initiator.bench;

import java.util.SplittableRandom;

/**
 * What every session of a run does, fixed before the clock starts.
 *
 * @param blockBytes  bytes per command
 * @param ioBlocks    logical blocks per command ({@code blockBytes} / the LUN's block length)
 * @param readPercent share of reads in percent
 * @param firstLba    first LBA of the region
 * @param blocks      region length in logical blocks
 * @param random      random rather than sequential LBAs
 * @param sessions    number of sessions: sequential walks start evenly spread over the region
 * @param seed        seeds each session's LBA and read/write choices
 */
record SessionPlan(int lun, int blockBytes, int ioBlocks, int queueDepth, int readPercent, long firstLba,
                   long blocks, boolean random, int sessions, long seed) {

    /** Session {@code index}'s LBA generator: its own random stream, or its own start for a sequential walk. */
    LbaGenerator lbas(int index) {
        SplittableRandom rng = random ? new SplittableRandom(seed * 31 + index) : null;
        long slots = blocks / ioBlocks;
        long start = slots * index / sessions;
        return new LbaGenerator(firstLba, blocks, ioBlocks, rng, start);
    }
}
