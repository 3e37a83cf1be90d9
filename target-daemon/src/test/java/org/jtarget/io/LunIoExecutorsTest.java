package org.jtarget.io;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.FabricOps;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.rw10;

class LunIoExecutorsTest {

    @Test
    void blockingStoreRunsOffTheLoopAndCompletesOnTheCommandsLoop() throws Exception {
        LunIoExecutors executors = new LunIoExecutors(2, 16);
        TestStore store = new TestStore(512, 16, false, false);
        ScsiTargetCore core = new ScsiTargetCore("iqn.t", List.of(new LogicalUnitDefinition(0, store, false, false)), executors);
        DefaultEventExecutor loop = new DefaultEventExecutor();
        CompletableFuture<Boolean> onLoop = new CompletableFuture<>();
        FabricOps fabric = new FabricOps() {
            public void writePending(ScsiCommand cmd) { }
            public void queueDataIn(ScsiCommand cmd) { end(cmd); }
            public void queueStatus(ScsiCommand cmd) { end(cmd); }
            public void queueTmResponse(TmfRequest tmf) { }
            public void abortedTask(ScsiCommand cmd) { end(cmd); }
            private void end(ScsiCommand cmd) {
                boolean ok = loop.inEventLoop() && cmd.dataIn() != null && cmd.dataIn().readableBytes() == 512;
                cmd.releaseBuffers();
                onLoop.complete(ok);
            }
        };
        ScsiCommand cmd = new ScsiCommand();
        byte[] cdb = rw10(0x28, 0, 0, 1);
        cmd.cdb(cdb, 0, cdb.length);
        cmd.fabric(fabric);
        cmd.eventLoop(loop);
        cmd.alloc(PooledByteBufAllocator.DEFAULT);
        cmd.expectedDataTransferLength(512);
        loop.execute(() -> core.submit(cmd));
        assertThat(onLoop.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(executors.shutdown(Duration.ofSeconds(10))).isTrue();
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    @Test
    void aRetiredExecutorStopsAndOthersAreLeftAlone() throws Exception {
        LunIoExecutors executors = new LunIoExecutors(1, 4);
        java.util.concurrent.Executor gone = executors.forLun("t/lun1");
        java.util.concurrent.Executor kept = executors.forLun("t/lun2");
        executors.retire(gone);
        executors.retire(Runnable::run); // not one of ours: ignored
        assertThat(((java.util.concurrent.ExecutorService) gone).isShutdown()).isTrue();
        assertThat(((java.util.concurrent.ExecutorService) kept).isShutdown()).isFalse();
        assertThat(executors.shutdown(Duration.ofSeconds(5))).isTrue();
    }
}
