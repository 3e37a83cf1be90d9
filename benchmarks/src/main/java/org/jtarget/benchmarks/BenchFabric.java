package org.jtarget.benchmarks;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ScatterList;
import org.jtarget.scsi.spi.FabricOps;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TargetCore;
import org.jtarget.scsi.spi.TmfRequest;

/**
 * A fabric that answers the core inline, without a network: data-out comes from one prepared
 * buffer, and the end of each command is recorded ({@link #lastStatus}, {@link #lastBytes}) and
 * its buffers released, as the iSCSI fabric does once it has sent them. Single-threaded.
 */
final class BenchFabric implements FabricOps {

    private final ByteBuf writeData;
    private final ScatterList dataOut = new ScatterList();
    private TargetCore core;

    int lastStatus = -1;
    int lastBytes;

    /** @param writeData what every WRITE carries (borrowed; the caller releases it) */
    BenchFabric(ByteBuf writeData) {
        this.writeData = writeData;
    }

    void core(TargetCore core) {
        this.core = core;
    }

    /**
     * Hands the data over as the iSCSI fabric does: one retained segment recording its root buffer,
     * in a list kept across commands (the command's release empties it).
     */
    @Override
    public void writePending(ScsiCommand cmd) {
        dataOut.add(writeData.retain(), writeData, writeData.readerIndex());
        cmd.dataOut(dataOut);
        core.dataOutComplete(cmd);
    }

    @Override
    public void queueDataIn(ScsiCommand cmd) {
        lastBytes = cmd.dataIn().readableBytes();
        end(cmd);
    }

    @Override
    public void queueStatus(ScsiCommand cmd) {
        lastBytes = 0;
        end(cmd);
    }

    @Override
    public void abortedTask(ScsiCommand cmd) {
        lastBytes = -1;
        end(cmd);
    }

    @Override
    public void queueTmResponse(TmfRequest tmf) {
        throw new UnsupportedOperationException("no task management in the benchmarks");
    }

    private void end(ScsiCommand cmd) {
        lastStatus = cmd.status();
        cmd.releaseBuffers();
    }

    /** Throws unless the last command ended GOOD having moved {@code bytes} of data-in (0 for a write). */
    void expectGood(int bytes) {
        if (lastStatus != ScsiStatus.GOOD || lastBytes != bytes) {
            throw new IllegalStateException("command ended with status " + lastStatus + ", " + lastBytes + " bytes");
        }
    }
}
