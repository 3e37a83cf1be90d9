package org.jtarget.initiator.cli;

import java.io.IOException;

/**
 * What readcap, read, write and verify need of a target, so that {@link Commands} serve a SCSI
 * logical unit ({@link ScsiBlockDevice}) and an RDMA store endpoint ({@link RdmaBlockDevice})
 * alike. A device splits a transfer into chunks as suits it; failures are {@link CliFailure}s
 * with the CLI's exit codes.
 */
interface BlockDevice {

    /** Takes the chunks of a read in LBA order. */
    @FunctionalInterface
    interface ChunkSink {
        /** {@code data} holds the chunk's bytes; the sink may keep it. */
        void accept(Chunk chunk, byte[] data) throws IOException, CliFailure;
    }

    /** The block size and the number of blocks. */
    Capacity capacity() throws IOException, CliFailure;

    /** Reads {@code blocks} blocks from {@code lba}, chunk by chunk (offsets relative to {@code lba}). */
    void read(long lba, long blocks, ChunkSink sink) throws IOException, CliFailure;

    /** Writes {@code blocks} blocks from {@code lba} with the bytes of {@code source}. */
    void write(long lba, long blocks, DataSource source) throws IOException, CliFailure;
}
