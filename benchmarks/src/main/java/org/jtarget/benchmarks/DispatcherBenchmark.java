package org.jtarget.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.ImmediateEventExecutor;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.scsi.cdb.Opcodes;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;

/**
 * READ(10) and WRITE(10) of 4 KiB (SBC-4 5.16, 5.39) on a memory LU, end to end through
 * {@link ScsiTargetCore#submit}: gate, CDB parse, range lock, store I/O, status, and the fabric
 * callback ({@link BenchFabric}), all inline on the benchmark thread as on an event loop. One
 * {@link ScsiCommand} is reused, as a fabric recycles them. Run with {@code -prof gc} to see
 * the bytes allocated per command ({@code gc.alloc.rate.norm}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"--enable-native-access=ALL-UNNAMED", "-Dio.netty.leakDetection.level=disabled"})
public class DispatcherBenchmark {

    private static final int BLOCK_SIZE = 512;
    private static final int TRANSFER_BYTES = 4096;
    private static final int TRANSFER_BLOCKS = TRANSFER_BYTES / BLOCK_SIZE;
    /** 64 MiB LU; commands walk it in 4 KiB steps so they do not all hit one chunk. */
    private static final int SLOTS = 16384;
    private static final ITNexus NEXUS =
            new ITNexus(ProtocolId.ISCSI, "iqn.2026-11.org.example:bench", "iqn.2026-11.org.example:bench,i,0x23d000000001",
                    "iqn.2026-11.org.jtarget:bench,t,0x1", 1, 1);

    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    private final ScsiCommand cmd = new ScsiCommand();
    private final byte[] read10 = cdb10(Opcodes.READ_10);
    private final byte[] write10 = cdb10(Opcodes.WRITE_10);
    private MemoryBackstore store;
    private ScsiTargetCore core;
    private ByteBuf writeData;
    private BenchFabric fabric;
    private int slot;
    private long tag;

    @Setup
    public void setUp() throws StoreException {
        store = new MemoryBackstore("bench", BLOCK_SIZE, (long) SLOTS * TRANSFER_BLOCKS, false, true,
                MemoryBackstore.DEFAULT_CHUNK_SIZE);
        core = new ScsiTargetCore("iqn.2026-11.org.jtarget:bench", List.of(new LogicalUnitDefinition(0, store, false, false)),
                new LunIoExecutors(name -> Runnable::run));
        writeData = alloc.directBuffer(TRANSFER_BYTES, TRANSFER_BYTES);
        for (int i = 0; i < TRANSFER_BYTES; i++) {
            writeData.writeByte(i * 31);
        }
        fabric = new BenchFabric(writeData);
        fabric.core(core);
        core.nexusLoggedIn(NEXUS);
        clearUnitAttentions();
        read();
        fabric.expectGood(TRANSFER_BYTES);
        write();
        fabric.expectGood(0);
    }

    /** SAM-5 5.14: a new nexus first sees POWER ON, RESET OR BUS DEVICE RESET; consume it. */
    private void clearUnitAttentions() {
        for (int i = 0; i < 8; i++) {
            submit(new byte[6], 0, DataDirection.NONE); // TEST UNIT READY
            if (fabric.lastStatus == ScsiStatus.GOOD) {
                return;
            }
        }
        throw new IllegalStateException("unit attentions do not clear: status " + fabric.lastStatus);
    }

    @TearDown
    public void tearDown() {
        core.nexusLoggedOut(NEXUS);
        writeData.release();
        store.close();
    }

    @Benchmark
    public int read() {
        submit(next(read10), TRANSFER_BYTES, DataDirection.READ);
        return fabric.lastBytes;
    }

    /** The data-out arrives as one segment of a receive buffer, as the iSCSI fabric hands it over. */
    @Benchmark
    public int write() {
        submit(next(write10), TRANSFER_BYTES, DataDirection.WRITE);
        return fabric.lastStatus;
    }

    /** Moves the CDB's LBA to the next 4 KiB slot. */
    private byte[] next(byte[] cdb) {
        int lba = (slot++ & (SLOTS - 1)) * TRANSFER_BLOCKS;
        cdb[2] = (byte) (lba >>> 24);
        cdb[3] = (byte) (lba >>> 16);
        cdb[4] = (byte) (lba >>> 8);
        cdb[5] = (byte) lba;
        return cdb;
    }

    /** Fills the reused command the way a fabric does for a new SCSI Command and submits it. */
    private void submit(byte[] cdb, int edtl, DataDirection direction) {
        cmd.reset();
        cmd.cdb(cdb, 0, cdb.length);
        cmd.lun(0);
        cmd.tag(tag++);
        cmd.nexus(NEXUS);
        cmd.fabric(fabric);
        cmd.eventLoop(ImmediateEventExecutor.INSTANCE);
        cmd.alloc(alloc);
        cmd.expectedDataTransferLength(edtl);
        cmd.direction(direction);
        core.submit(cmd);
    }

    /** READ(10)/WRITE(10) of {@link #TRANSFER_BLOCKS} blocks (LBA filled per command). */
    private static byte[] cdb10(int opcode) {
        byte[] cdb = new byte[10];
        cdb[0] = (byte) opcode;
        cdb[8] = (byte) TRANSFER_BLOCKS;
        return cdb;
    }
}
