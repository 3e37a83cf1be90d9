package org.jtarget.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
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

    /** TaskSequencer's component limit for a command's data-out. */
    private static final int MAX_COMPOSITE_COMPONENTS = 1024;

    private final ByteBufAllocator alloc;
    private final ByteBuf writeData;
    private final CompositeByteBuf reusedDataOut;
    private TargetCore core;
    private boolean freshDataOut;

    int lastStatus = -1;
    int lastBytes;

    /** @param writeData what every WRITE carries (borrowed; the caller releases it) */
    BenchFabric(ByteBufAllocator alloc, ByteBuf writeData) {
        this.alloc = alloc;
        this.writeData = writeData;
        this.reusedDataOut = alloc.compositeDirectBuffer(MAX_COMPOSITE_COMPONENTS);
        reusedDataOut.addComponent(true, writeData.retainedSlice());
    }

    void core(TargetCore core) {
        this.core = core;
    }

    /**
     * True: each WRITE gets a new CompositeByteBuf holding a retained slice of the data, as the
     * iSCSI fabric builds from immediate data today; false: one composite kept alive across
     * commands, so only the core's own allocation is measured.
     */
    void freshDataOut(boolean fresh) {
        this.freshDataOut = fresh;
    }

    void release() {
        reusedDataOut.release();
    }

    @Override
    public void writePending(ScsiCommand cmd) {
        CompositeByteBuf data;
        if (freshDataOut) {
            data = alloc.compositeDirectBuffer(MAX_COMPOSITE_COMPONENTS);
            data.addComponent(true, writeData.retainedSlice());
        } else {
            data = reusedDataOut.retain(); // the command's release leaves our reference
            data.readerIndex(0);
        }
        cmd.dataOut(data);
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
