package org.jtarget.initiator.cli;

import java.io.IOException;
import org.jtarget.initiator.raw.ScsiCdbs;

/**
 * A logical unit through an open {@link ScsiSession} (iSCSI, iSER or SRP): one READ (16) or
 * WRITE (16) of up to {@link Chunk#MAX_CHUNK_BYTES} at a time. READ CAPACITY runs once, on first need.
 */
final class ScsiBlockDevice implements BlockDevice {

    private final ScsiSession session;
    private final boolean fua;
    private Capacity capacity;

    /** @param fua set FUA in every WRITE (16) */
    ScsiBlockDevice(ScsiSession session, boolean fua) {
        this.session = session;
        this.fua = fua;
    }

    @Override
    public Capacity capacity() throws IOException, CliFailure {
        if (capacity == null) {
            capacity = session.capacity();
        }
        return capacity;
    }

    @Override
    public void read(long lba, long blocks, ChunkSink sink) throws IOException, CliFailure {
        int blockSize = capacity().blockSize();
        for (Chunk c : Chunk.split(lba, blocks, blockSize, Chunk.MAX_CHUNK_BYTES)) {
            sink.accept(c, readChunk(c, blockSize));
        }
    }

    @Override
    public void write(long lba, long blocks, DataSource source) throws IOException, CliFailure {
        int blockSize = capacity().blockSize();
        for (Chunk c : Chunk.split(lba, blocks, blockSize, Chunk.MAX_CHUNK_BYTES)) {
            byte[] d = new byte[c.bytes(blockSize)];
            source.next(d, d.length);
            session.dataOut(ScsiCdbs.write16(c.lba(), c.blocks(), fua), d, "WRITE (16) at LBA " + c.lba());
        }
    }

    private byte[] readChunk(Chunk c, int blockSize) throws IOException, CliFailure {
        int length = c.bytes(blockSize);
        byte[] d = session.dataIn(ScsiCdbs.read16(c.lba(), c.blocks()), length, "READ (16) at LBA " + c.lba());
        if (d.length != length) {
            throw new CliFailure(CliFailure.IO_ERROR, "READ (16) at LBA " + c.lba() + " returned " + d.length
                    + " of " + length + " bytes");
        }
        return d;
    }
}
